// Server code for /managers and /users (route modules reach server/ only through *.server.ts files).
export {
  deleteUser,
  forceLogout,
  generateSipAccount,
  listUsers,
  registerManager,
  updateUser,
  FILL_ALL_FIELDS,
  LOGIN_NEEDED_FOR_SIP,
} from "#server/core/users/managers";
export { listUsersOnline } from "#server/core/users/presence";
export { generateAccessKey, generatePassword } from "../common/credentials";
export { isAppError } from "#server/core/errors";
