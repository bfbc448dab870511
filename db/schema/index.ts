export * from "./users";
export * from "./work";
export * from "./bases";
export * from "./filters";
export * from "./events";
export * from "./calls";
