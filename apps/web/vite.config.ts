import react from "@vitejs/plugin-react";
import { defineConfig } from "vite";

// The reference pages, built to dist/ and served by the API server at / (docs/web.md).
export default defineConfig({
  plugins: [react()],
  build: { outDir: "dist", emptyOutDir: true, sourcemap: true },
});
