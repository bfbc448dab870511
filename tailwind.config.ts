import type { Config } from "tailwindcss";

export default {
  content: ["./app/**/*.{ts,tsx}"],
  darkMode: "class",
  theme: {
    extend: {
      screens: { desk: "1100px" },
    },
  },
  plugins: [],
} satisfies Config;
