// Bundle entry for dist/validate.cjs: the zod side of config loading, required by the hook only on a
// config cache miss.
export { validator } from '../config/resolve.js';
