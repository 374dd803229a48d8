/**
 * What the MCP tools add to the core input schemas. Tool inputs are the core
 * schemas (`@orgsim/core` schemas/*.ts) extended with `.safeExtend()`; only
 * these agent-facing options are MCP's own:
 *
 * - `detail`: compact records (the fields an agent needs to decide) or full ones;
 * - `limit`: a smaller page for agents (default 10, at most 50 instead of REST's 100),
 *   so one answer stays a few kilobytes; `cursor` pages on as in REST. Searches with
 *   detail="full" return at most FULL_MAX_PAGE_SIZE organizations a page.
 */
import { intParam } from "@orgsim/core";
import { z } from "zod";

export const AGENT_PAGE_SIZE = 10;
export const AGENT_MAX_PAGE_SIZE = 50;
/** Full organization records are ~1.2 kB each: a full page holds at most this many. */
export const FULL_MAX_PAGE_SIZE = 20;

export const Detail = z.enum(["compact", "full"]);
export type Detail = z.infer<typeof Detail>;

/** `detail`, with the default that suits the tool (lists: compact; one record asked for by id: full). */
export const detailParam = (fallback: Detail) =>
  Detail.default(fallback).meta({
    description:
      fallback === "compact"
        ? 'compact (default): id, name, domain, a one-line description, categories, HQ, size, founding year, last funding round (and score, rank); "full": complete records'
        : 'full (default): the complete record; "compact": only the fields needed to decide',
  });

/** The agent page size: the core's integer parameter with a tighter bound. */
export const agentLimit = () =>
  intParam(z.number().int().min(1).max(AGENT_MAX_PAGE_SIZE))
    .default(AGENT_PAGE_SIZE)
    .meta({ description: `Results per call (1–${AGENT_MAX_PAGE_SIZE}, default ${AGENT_PAGE_SIZE}); pass meta.next_cursor as cursor for more` });

/** The search page size: as `agentLimit`, but full records come at most FULL_MAX_PAGE_SIZE a page. */
export const searchLimit = () =>
  intParam(z.number().int().min(1).max(AGENT_MAX_PAGE_SIZE))
    .default(AGENT_PAGE_SIZE)
    .meta({
      description: `Results per call (1–${AGENT_MAX_PAGE_SIZE}, default ${AGENT_PAGE_SIZE}; with detail="full" at most ${FULL_MAX_PAGE_SIZE}); pass meta.next_cursor as cursor for more`,
    });

export const cursorDescription = "meta.next_cursor of the previous call, with the same other arguments";
