/*
 * adminctl.h: `hokitod accounts ...` (adminctl.c), the operators' commands on accounts: a client
 * of the running server's admin socket (admin.h), or, with no server running, a short writer of
 * the store file itself.
 */
#ifndef HOKITO_SERVER_ADMINCTL_H
#define HOKITO_SERVER_ADMINCTL_H

/*
 * Run `hokitod accounts` with argv[0] "accounts" and its arguments; default_db is the store
 * used without --db (borrowed). Returns the exit status: 0 done, 1 refused, 2 usage, 3 no server
 * nor store usable.
 */
int adminctl_main(int argc, char **argv, const char *default_db);

#endif
