import { openaiToolNames } from '../openai/names';

/** Responses function names follow the Chat Completions rule (1 to 64 of [A-Za-z0-9_-]), so one map serves both. */
export const responsesToolNames = openaiToolNames;
