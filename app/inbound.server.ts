// Server code for «Принимать входящие» (issue 42): reaches route modules only through this file.
import * as z from "zod";
import { localPathField } from "./redirects.server";

export { setAcceptsInbound } from "#server/core/telephony/inbound";
export { isAppError } from "#server/core/errors";

/** The page to come back to without JavaScript. */
export const inboundReturnForm = z.object({ redirectTo: localPathField("/leadpanel") });
export { incomingCallCard, takeInboundCaller, type IncomingCard } from "#server/core/telephony/inbound";
