// The workspace rules (eslint.base.js); `npm run lint` at the root lints every package in one run.
export { workspace as default } from "../../eslint.base.js";
