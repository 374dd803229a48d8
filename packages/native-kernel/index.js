// The compiled addon (binding.gyp, src/*.c), built by `pnpm install` (this package's
// install script, node-gyp). Plain JavaScript so that Node loads it from the server's bundle as it is.
import { createRequire } from "node:module";

const require = createRequire(import.meta.url);
const addon = require("./build/Release/native_kernel.node");

/** The compiled addon's file, for a worker thread to load (a thread loads its own copy of an addon). */
export const addonFile = require.resolve("./build/Release/native_kernel.node");

export const scoreRows = addon.scoreRows;
export const mapFile = addon.mapFile;
export const accumulatePostings = addon.accumulatePostings;
export const completePostings = addon.completePostings;
export const slotsReaching = addon.slotsReaching;
export const slotsAbove = addon.slotsAbove;
export const countAbove = addon.countAbove;
export const clearSlots = addon.clearSlots;
export const bestSlots = addon.bestSlots;
export const openGraphView = addon.openGraphView;
export const filteredGraphSearch = addon.filteredGraphSearch;
