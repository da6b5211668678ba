/**
 * The default branches of a decider's two switches. Each takes the switched-on value typed `never`, so
 * the switch does not compile while a member of the union has no case; at run time they say what an
 * unknown type means.
 */
import { invalid } from './errors.js';

/** decide's default: a command of a type this decider does not know is refused. */
export function unknownCommand(_command: never): never {
  throw invalid('Unknown command');
}

/** evolve's default: an event of a type this state does not know changes nothing. */
export function unknownEvent<State>(_event: never, state: State): State {
  return state;
}
