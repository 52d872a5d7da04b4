/**
 * Compile-time contract checks (Emmett's `eventStoreContract.unit.spec.ts` habit): `Satisfies<Port,
 * Adapter>` is a type error the moment `Adapter` stops satisfying `Port`, so `npm run typecheck` (run by
 * CI before the tests) fails. One file per port in this folder.
 */
export type Satisfies<Port, Adapter extends Port> = Adapter;
