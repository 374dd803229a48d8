/** Transport limits of the contract. */
export const MAX_BODY_BYTES = 5 * 1024 * 1024;
