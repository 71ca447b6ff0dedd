export {
  startSimulator,
  type Simulator,
  type SimulatorFault,
  type SimulatorOptions,
  type SimulatorRequest,
} from './server.js';
