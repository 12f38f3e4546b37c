// One ESLint run for the whole workspace (`npm run lint`): the shared rules, plus the api's layers.
import { workspace } from "./eslint.base.js";
import { apiLayers } from "./packages/api/eslint.config.js";

export default [...workspace, ...apiLayers("packages/api/")];
