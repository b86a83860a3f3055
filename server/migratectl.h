/*
 * migratectl.h: `hokitod migrate --from A --to B` (migratectl.c), the operators' copy of a whole
 * store into a new or empty one, on any backend, checked against its source.
 */
#ifndef HOKITO_SERVER_MIGRATECTL_H
#define HOKITO_SERVER_MIGRATECTL_H

/*
 * Run `hokitod migrate` with argv[0] "migrate" and its arguments. Returns the exit status: 0
 * copied and checked, 1 refused, failed or the copy differs, 2 usage.
 */
int migratectl_main(int argc, char **argv);

#endif
