import { createContext, useContext } from "react";

/** The CSP nonce of the current response (server only; in the browser it is empty, as scripts are already in). */
const NonceContext = createContext<string | undefined>(undefined);
export const NonceProvider = NonceContext.Provider;
export const useNonce = () => useContext(NonceContext);
