/*
 * backupctl.h: `hokitod backup FILE [--db PATH]` (backupctl.c), the operators' online copy of the
 * store into a new file (SQLite); for PostgreSQL, the pg_dump command that makes one.
 */
#ifndef HOKITO_SERVER_BACKUPCTL_H
#define HOKITO_SERVER_BACKUPCTL_H

/*
 * Run `hokitod backup` with argv[0] "backup" and its arguments; default_db is the store used
 * without --db (borrowed). Returns the exit status: 0 done, 1 failed, 2 usage or a store it does
 * not copy itself.
 */
int backupctl_main(int argc, char **argv, const char *default_db);

#endif
