/** The SDK's version, sent in the user agent; kept equal to package.json's by a unit test. */
export const VERSION = '0.1.0';
export const USER_AGENT = `engram-sdk-typescript/${VERSION}`;
