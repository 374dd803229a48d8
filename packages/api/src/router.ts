/** The one router every surface is generated from or bound to. */
import { router } from "./trpc";
import { collectionsRouter } from "./routers/collections";
import { categoriesRouter, organizationsRouter } from "./routers/organizations";
import { searchRouter } from "./routers/search";

export const appRouter = router({
  search: searchRouter,
  organizations: organizationsRouter,
  categories: categoriesRouter,
  collections: collectionsRouter,
});

export type AppRouter = typeof appRouter;
