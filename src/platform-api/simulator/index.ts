export {
  startSimulator,
  type Simulator,
  type SimulatorFault,
  type SimulatorOptions,
  type SimulatorRequest,
} from './server.js';
export type { SimulatorScript } from './script.js';
