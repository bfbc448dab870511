// The /webPhone route's server-only import (README.md here): its browser module then reaches no module of the
// layout's chunk (app/layout-chunk.ts, decision 090), which would split that chunk in two.
export { webPhoneRedirectUrl } from "../lib/softphone/config";
