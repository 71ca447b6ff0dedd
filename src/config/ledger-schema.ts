import * as z from 'zod';

// Placeholder until the session ledger lands.
export const ledgerConfigSchema = z.looseObject({}).describe('Session ledger.');
