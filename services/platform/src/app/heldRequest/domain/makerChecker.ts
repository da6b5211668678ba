/**
 * Maker-checker under its former path, for the gateway route files (gateway/src/http) whose import line is
 * switched to @meridian/platform/domain/makerChecker in the working tree but not committed yet; delete this file
 * once no import names it.
 */
export * from '../../../domain/makerChecker.js';
