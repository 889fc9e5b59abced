/** The one jotai store, shared by React (through the Provider) and by actions that run outside components. */
import { createStore } from 'jotai';

export const store = createStore();
