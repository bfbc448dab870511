/**
 * `npm start` and a systemd unit usually leave NODE_ENV unset: that must mean production (React's production
 * build, no development error details from Remix or Express). Imported first by main.ts, so it is set before any
 * module that reads it at load time is evaluated.
 */
process.env.NODE_ENV ||= "production";
export {};
