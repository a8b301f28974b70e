/* herald-loop-db: reads a Loop Habit Tracker backup (an SQLite database) and prints its habits
 * and repetitions as one JSON document for `herald habit import`.
 *
 * A program of its own so that `herald` stays a small static executable free of SQLite, and so
 * that a hostile database can only ever crash this process. Written in C against the system's
 * libsqlite3: in Swift, the standard library alone would add 5 MB to the package
 * (BENCHMARKS.md, "Installed size").
 *
 * The backup is untrusted: it is opened read-only and immutable, with SQLite's defensive mode
 * on and its schema distrusted, a bound on the work a statement may do, and bounds on what is
 * read (habits, repetitions, text lengths). Exit status: 0, 64 (usage), 65 (not a backup Herald
 * reads, or over a bound).
 */
#include <sqlite3.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Loop's newest schema version (Constants.DATABASE_VERSION); its importer takes 8 to 25. */
enum { oldest_schema = 8, newest_schema = 25 };
/* Far above what a person's backup holds (Loop keeps one repetition per habit and day). */
enum { max_habits = 10000, max_repetitions = 5000000, max_text = 65536 };
/* SQLite virtual-machine steps between progress checks, and the most such checks. */
enum { progress_every = 100000, max_progress = 2000 };

static const char *path;
static sqlite3 *db;

static void fail(const char *format, ...) {
    va_list args;
    fprintf(stderr, "herald-loop-db: %s: ", path);
    va_start(args, format);
    vfprintf(stderr, format, args);
    va_end(args);
    fputc('\n', stderr);
    if (db) sqlite3_close(db);
    exit(65);
}

static int progress_calls;
/* Stops a statement that runs far longer than any backup needs (a crafted schema or index). */
static int progress(void *unused) {
    (void)unused;
    return ++progress_calls > max_progress;
}

static sqlite3_stmt *prepare(const char *sql) {
    sqlite3_stmt *stmt = NULL;
    if (sqlite3_prepare_v2(db, sql, -1, &stmt, NULL) != SQLITE_OK) fail("%s", sqlite3_errmsg(db));
    return stmt;
}

/* One step; fails with SQLite's message on an error (a corrupt page, the work bound). */
static int step(sqlite3_stmt *stmt) {
    int rc = sqlite3_step(stmt);
    if (rc == SQLITE_ROW || rc == SQLITE_DONE) return rc;
    if (rc == SQLITE_INTERRUPT) fail("reading it takes too long: not a Loop Habit Tracker backup");
    fail("%s", sqlite3_errmsg(db));
    return rc;
}

/* The output is built in memory and written at the end: nothing is printed for a bad backup. */
static char *out;
static size_t out_len, out_cap;

static void put(const char *bytes, size_t n) {
    if (out_len + n > out_cap) {
        size_t cap = out_cap ? out_cap : 65536;
        while (cap < out_len + n) cap *= 2;
        char *grown = realloc(out, cap);
        if (!grown) fail("out of memory");
        out = grown;
        out_cap = cap;
    }
    memcpy(out + out_len, bytes, n);
    out_len += n;
}

static void puts_(const char *text) { put(text, strlen(text)); }

static void put_int(sqlite3_int64 n) {
    char buffer[32];
    int len = snprintf(buffer, sizeof buffer, "%lld", (long long)n);
    put(buffer, (size_t)len);
}

/* UTF-8 well-formed sequence length at s (at most n bytes), or 0 (RFC 3629). */
static size_t utf8_length(const unsigned char *s, size_t n) {
    unsigned char c = s[0];
    size_t len;
    if (c < 0x80) return 1;
    if (c >= 0xC2 && c <= 0xDF) len = 2;
    else if (c >= 0xE0 && c <= 0xEF) len = 3;
    else if (c >= 0xF0 && c <= 0xF4) len = 4;
    else return 0;
    if (len > n) return 0;
    for (size_t i = 1; i < len; i++) if ((s[i] & 0xC0) != 0x80) return 0;
    if (c == 0xE0 && s[1] < 0xA0) return 0;           /* overlong */
    if (c == 0xED && s[1] > 0x9F) return 0;           /* surrogates */
    if (c == 0xF0 && s[1] < 0x90) return 0;           /* overlong */
    if (c == 0xF4 && s[1] > 0x8F) return 0;           /* above U+10FFFF */
    return len;
}

/* A JSON string: quotes, backslashes and controls escaped, ill-formed UTF-8 as U+FFFD. */
static void put_string(const unsigned char *s, size_t n) {
    static const char hex[] = "0123456789abcdef";
    put("\"", 1);
    for (size_t i = 0; i < n;) {
        unsigned char c = s[i];
        if (c == '"' || c == '\\') {
            char escaped[2] = {'\\', (char)c};
            put(escaped, 2);
            i++;
        } else if (c < 0x20 || c == 0x7F) {
            char escaped[6] = {'\\', 'u', '0', '0', hex[c >> 4], hex[c & 15]};
            put(escaped, 6);
            i++;
        } else {
            size_t len = utf8_length(s + i, n - i);
            if (len == 0) {
                put("\xEF\xBF\xBD", 3);
                i++;
            } else {
                put((const char *)s + i, len);
                i += len;
            }
        }
    }
    put("\"", 1);
}

/* A column's value as JSON; false (nothing written) for NULL, a blob or a number JSON cannot hold. */
static int put_value(sqlite3_stmt *stmt, int column, const char *name) {
    switch (sqlite3_column_type(stmt, column)) {
    case SQLITE_INTEGER:
        put_int(sqlite3_column_int64(stmt, column));
        return 1;
    case SQLITE_FLOAT: {
        double x = sqlite3_column_double(stmt, column);
        if (x != x || x > 1.7976931348623157e308 || x < -1.7976931348623157e308) return 0;
        char buffer[40];
        int len = snprintf(buffer, sizeof buffer, "%.17g", x);
        put(buffer, (size_t)len);
        return 1;
    }
    case SQLITE_TEXT: {
        const unsigned char *text = sqlite3_column_text(stmt, column);
        int n = sqlite3_column_bytes(stmt, column);
        if (n > max_text) fail("habit column '%s' holds %d bytes; Herald reads at most %d", name, n, max_text);
        put_string(text, (size_t)n);
        return 1;
    }
    default:
        return 0;
    }
}

static int has_column(const char *table, const char *column) {
    sqlite3_stmt *stmt = prepare(strcmp(table, "Habits") == 0 ? "PRAGMA table_info(Habits)" : "PRAGMA table_info(Repetitions)");
    int found = 0;
    while (step(stmt) == SQLITE_ROW) {
        const unsigned char *name = sqlite3_column_text(stmt, 1);
        if (name && strcmp((const char *)name, column) == 0) found = 1;
    }
    sqlite3_finalize(stmt);
    return found;
}

static const char *const wanted[] = {
    "id", "name", "question", "description", "freq_num", "freq_den", "type", "target_type",
    "target_value", "unit", "archived", "position", "reminder_hour", "reminder_min", "reminder_days",
};
enum { wanted_count = sizeof wanted / sizeof wanted[0] };

int main(int argc, char **argv) {
    if (argc != 2 || argv[1][0] == '-') {
        fputs("usage: herald-loop-db FILE.db (prints the backup's habits as JSON)\n", stderr);
        return 64;
    }
    path = argv[1];

    FILE *file = fopen(path, "rb");
    if (!file) fail("cannot be opened");
    char magic[16] = {0};
    size_t got = fread(magic, 1, sizeof magic, file);
    fclose(file);
    if (got < sizeof magic || memcmp(magic, "SQLite format 3", 16) != 0) fail("not an SQLite database (a Loop backup is one)");

    /* immutable: no lock, no journal, no -wal beside it is read or made; the file is a backup. */
    /* A path with '?', '#' or '%' cannot be put in a URI as it is: it is opened read-only by name. */
    char *uri = strpbrk(path, "?#%") ? NULL : sqlite3_mprintf("file:%s?mode=ro&immutable=1", path);
    int rc = uri ? sqlite3_open_v2(uri, &db, SQLITE_OPEN_READONLY | SQLITE_OPEN_URI, NULL)
                 : sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL);
    sqlite3_free(uri);
    if (rc != SQLITE_OK) fail("%s", db ? sqlite3_errmsg(db) : "cannot be opened");
    sqlite3_db_config(db, SQLITE_DBCONFIG_DEFENSIVE, 1, NULL);
    sqlite3_db_config(db, SQLITE_DBCONFIG_TRUSTED_SCHEMA, 0, NULL);
    sqlite3_db_config(db, SQLITE_DBCONFIG_ENABLE_TRIGGER, 0, NULL);
    sqlite3_db_config(db, SQLITE_DBCONFIG_ENABLE_VIEW, 0, NULL);
    sqlite3_limit(db, SQLITE_LIMIT_LENGTH, 1 << 20);
    sqlite3_limit(db, SQLITE_LIMIT_SQL_LENGTH, 1 << 16);
    sqlite3_limit(db, SQLITE_LIMIT_ATTACHED, 0);
    sqlite3_progress_handler(db, progress_every, progress, NULL);

    sqlite3_stmt *stmt = prepare("SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name IN ('Habits', 'Repetitions')");
    step(stmt);
    int tables = sqlite3_column_int(stmt, 0);
    sqlite3_finalize(stmt);
    if (tables != 2) fail("no Habits and Repetitions tables: not a Loop Habit Tracker backup");

    stmt = prepare("PRAGMA user_version");
    int version = step(stmt) == SQLITE_ROW ? sqlite3_column_int(stmt, 0) : 0;
    sqlite3_finalize(stmt);
    if (version < oldest_schema || version > newest_schema)
        fail("Loop schema version %d; Herald reads versions %d to %d", version, oldest_schema, newest_schema);

    static const char *const needed[] = {"id", "name", "freq_num", "freq_den", "archived", "position"};
    for (size_t i = 0; i < sizeof needed / sizeof needed[0]; i++)
        if (!has_column("Habits", needed[i])) fail("the Habits table has no '%s' column", needed[i]);
    static const char *const repetition_columns[] = {"habit", "timestamp", "value"};
    for (size_t i = 0; i < 3; i++)
        if (!has_column("Repetitions", repetition_columns[i])) fail("the Repetitions table has no '%s' column", repetition_columns[i]);

    /* Every wanted column, as NULL where this schema version has none (names are ours, not the file's). */
    char sql[1024] = "SELECT ";
    for (int i = 0; i < wanted_count; i++) {
        if (i) strcat(sql, ", ");
        if (has_column("Habits", wanted[i])) {
            strcat(sql, wanted[i]);
        } else {
            strcat(sql, "NULL AS ");
            strcat(sql, wanted[i]);
        }
    }
    strcat(sql, " FROM Habits ORDER BY position");

    puts_("{\"habits\":[");
    sqlite3_stmt *habits = prepare(sql);
    sqlite3_stmt *repetitions = prepare("SELECT timestamp, value FROM Repetitions WHERE habit = ? ORDER BY timestamp");
    int habit_count = 0;
    long repetition_count = 0;
    while (step(habits) == SQLITE_ROW) {
        if (++habit_count > max_habits) fail("more than %d habits: not a backup Herald reads", max_habits);
        if (sqlite3_column_type(habits, 0) != SQLITE_INTEGER) fail("a habit without an integer id");
        if (habit_count > 1) puts_(",");
        puts_("{");
        for (int i = 0; i < wanted_count; i++) {
            size_t mark = out_len;
            puts_("\"");
            puts_(wanted[i]);
            puts_("\":");
            if (put_value(habits, i, wanted[i])) puts_(",");
            else out_len = mark;  /* NULL or a blob: the key is left out, as the importer expects */
        }
        puts_("\"repetitions\":[");
        sqlite3_bind_int64(repetitions, 1, sqlite3_column_int64(habits, 0));
        int first = 1;
        while (step(repetitions) == SQLITE_ROW) {
            if (++repetition_count > max_repetitions) fail("more than %d repetitions: not a backup Herald reads", max_repetitions);
            /* A row without integer time and value is not one Loop wrote; it is passed over. */
            if (sqlite3_column_type(repetitions, 0) != SQLITE_INTEGER || sqlite3_column_type(repetitions, 1) != SQLITE_INTEGER) continue;
            if (!first) puts_(",");
            first = 0;
            puts_("[");
            put_int(sqlite3_column_int64(repetitions, 0));
            puts_(",");
            put_int(sqlite3_column_int64(repetitions, 1));
            puts_("]");
        }
        sqlite3_reset(repetitions);
        puts_("]}");
    }
    sqlite3_finalize(repetitions);
    sqlite3_finalize(habits);
    sqlite3_close(db);
    db = NULL;
    puts_("],\"schema\":");
    put_int(version);
    puts_("}\n");
    if (fwrite(out, 1, out_len, stdout) != out_len || fflush(stdout) != 0) {
        fprintf(stderr, "herald-loop-db: cannot write the result: standard output failed\n");
        return 74;
    }
    free(out);
    return 0;
}
