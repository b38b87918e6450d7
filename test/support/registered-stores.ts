import { modules } from '../../src/modules';
import { storesOf } from '../../src/services';

/** The stores of every registered module, as the service opens them: what the store suites run on. */
export const registeredStores = storesOf(modules);
