import { createCipheriv, createHash, createHmac } from "node:crypto";
import { createRequire } from "node:module";

/** The OLE container writer inside the `xlsx` package (its CommonJS exports: the ES module view leaves CFB out). */
const { CFB } = createRequire(import.meta.url)("xlsx") as typeof import("xlsx");

/**
 * An .xlsx saved with a password as Excel 2010 and later save it: ECMA-376 agile encryption ([MS-OFFCRYPTO]
 * 2.3.4.10-15: AES-256-CBC, SHA-512, 100,000 spins), the package encrypted in 4,096-byte segments into the
 * EncryptedPackage stream of an OLE file, beside the EncryptionInfo stream that describes the keys. LibreOffice 7.4
 * writes only the older "standard" encryption (libreoffice.ts makes those), so the differential test's agile file
 * is written here. Bytes that should be random come from a hash of the password, so the corpus is the same on every
 * build.
 */
export function agileEncrypt(pkg: Buffer, password: string): Buffer {
  const bytes = (label: string, n: number) => createHash("sha512").update(`${label}:${password}`).digest().subarray(0, n);
  const sha512 = (...parts: Buffer[]) => parts.reduce((h, part) => h.update(part), createHash("sha512")).digest();
  const aes = (key: Buffer, iv: Buffer, data: Buffer) => {
    const cipher = createCipheriv("aes-256-cbc", key, iv);
    cipher.setAutoPadding(false);
    return Buffer.concat([cipher.update(data), cipher.final()]);
  };
  const pad16 = (data: Buffer) => Buffer.concat([data, Buffer.alloc((16 - (data.length % 16)) % 16)]);
  const u32 = (n: number) => {
    const b = Buffer.alloc(4);
    b.writeUInt32LE(n);
    return b;
  };

  const keySalt = bytes("key salt", 16);
  const passwordSalt = bytes("password salt", 16);
  const secretKey = bytes("secret key", 32);
  const spins = 100_000;

  // The password's hash, spun, then one key per purpose (each fitted to 32 bytes with 0x36).
  let h = sha512(passwordSalt, Buffer.from(password, "utf16le"));
  for (let i = 0; i < spins; i++) h = sha512(u32(i), h);
  const passwordKey = (block: string) => {
    const key = sha512(h, Buffer.from(block, "hex"));
    return key.length >= 32 ? key.subarray(0, 32) : Buffer.concat([key, Buffer.alloc(32 - key.length, 0x36)]);
  };
  const verifierInput = bytes("verifier", 16);
  const encryptedVerifierHashInput = aes(passwordKey("fea7d2763b4b9e79"), passwordSalt, verifierInput);
  const encryptedVerifierHashValue = aes(passwordKey("d7aa0f6d3061344e"), passwordSalt, pad16(sha512(verifierInput)));
  const encryptedKeyValue = aes(passwordKey("146e0be7abacd0d6"), passwordSalt, secretKey);

  // The package: its size, then each 4,096-byte segment encrypted with an IV made of the key salt and its number.
  const segments: Buffer[] = [];
  for (let at = 0, n = 0; at < pkg.length; at += 4096, n++) {
    segments.push(aes(secretKey, sha512(keySalt, u32(n)).subarray(0, 16), pad16(pkg.subarray(at, at + 4096))));
  }
  const size = Buffer.alloc(8);
  size.writeBigUInt64LE(BigInt(pkg.length));
  const encryptedPackage = Buffer.concat([size, ...segments]);

  // Data integrity: an HMAC of the encrypted package, its key and value encrypted with the secret key.
  const hmacKey = bytes("hmac key", 64);
  const hmacValue = createHmac("sha512", hmacKey).update(encryptedPackage).digest();
  const encryptedHmacKey = aes(secretKey, sha512(keySalt, Buffer.from("5fb2ad010cb9e1f6", "hex")).subarray(0, 16), hmacKey);
  const encryptedHmacValue = aes(secretKey, sha512(keySalt, Buffer.from("a0677f02b22c8433", "hex")).subarray(0, 16), hmacValue);

  const b64 = (b: Buffer) => b.toString("base64");
  const params = `saltSize="16" blockSize="16" keyBits="256" hashSize="64" cipherAlgorithm="AES" cipherChaining="ChainingModeCBC" hashAlgorithm="SHA512"`;
  const xml =
    `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\r\n` +
    `<encryption xmlns="http://schemas.microsoft.com/office/2006/encryption" xmlns:p="http://schemas.microsoft.com/office/2006/keyEncryptor/password" xmlns:c="http://schemas.microsoft.com/office/2006/keyEncryptor/certificate">` +
    `<keyData ${params} saltValue="${b64(keySalt)}"/>` +
    `<dataIntegrity encryptedHmacKey="${b64(encryptedHmacKey)}" encryptedHmacValue="${b64(encryptedHmacValue)}"/>` +
    `<keyEncryptors><keyEncryptor uri="http://schemas.microsoft.com/office/2006/keyEncryptor/password">` +
    `<p:encryptedKey spinCount="${spins}" ${params} saltValue="${b64(passwordSalt)}" encryptedVerifierHashInput="${b64(encryptedVerifierHashInput)}" ` +
    `encryptedVerifierHashValue="${b64(encryptedVerifierHashValue)}" encryptedKeyValue="${b64(encryptedKeyValue)}"/>` +
    `</keyEncryptor></keyEncryptors></encryption>`;
  // Version 4.4 (agile), flags 0x40.
  const info = Buffer.concat([Buffer.from([4, 0, 4, 0]), u32(0x40), Buffer.from(xml, "utf8")]);

  const cfb = CFB.utils.cfb_new();
  CFB.utils.cfb_add(cfb, "/EncryptionInfo", info);
  CFB.utils.cfb_add(cfb, "/EncryptedPackage", encryptedPackage);
  return Buffer.from(CFB.write(cfb, { type: "buffer", fileType: "cfb" }) as Uint8Array);
}
