// The page's browser globals. The project compiles for Node without the DOM library, so the
// few globals the page touches are taken loosely here, once, for every module of the page.
/* eslint-disable @typescript-eslint/no-explicit-any */
export type El = any;
export const browserDocument: any = (globalThis as any).document;
export const browserWindow: any = (globalThis as any).window;
