/** What prints a new console login URL on the machine running the service (docs/console.md). */
export const NEW_LOGIN_URL_COMMAND = 'merchant-console console-token new';
