// Server code for /donotcall (route modules reach server/ only through *.server.ts files).
export {
  addDoNotCall,
  getDoNotCall,
  importDoNotCall,
  listDoNotCall,
  pasteDoNotCall,
  removeDoNotCall,
  PAGE_SIZE,
  type BulkReport,
} from "#server/core/dnc/dnc";
export { readForm } from "./bases.server";
export { removeUpload, uploadPath } from "#server/core/bases/uploads";
