/* A notification server that does nothing but note when each Notify arrives (BENCHMARKS.md,
 * "Bursts"): one line per call, "<ns since the epoch> <summary>", to FILE. GDBus in C, so that a
 * burst measures heraldd, libnotify and the bus, not the server.
 *
 *   cc -O2 -o /tmp/burst-server scripts/bench/burst-server.c $(pkg-config --cflags --libs gio-2.0)
 *   /tmp/burst-server FILE [WORK_US]   (on the session bus; prints "ready" once it owns the name)
 *
 * WORK_US (0 by default): microseconds of CPU the server spends on each Notify before it answers,
 * as a desktop's server does drawing the popup; the burst then shares the cores with a server
 * that works, not one that only answers (BENCHMARKS.md, "a burst inside heraldd's process").
 */
#include <errno.h>
#include <gio/gio.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
static FILE *out; static guint32 nid; static long work_us;
static const char xml[] = "<node><interface name='org.freedesktop.Notifications'>"
"<method name='Notify'><arg type='s' direction='in'/><arg type='u' direction='in'/><arg type='s' direction='in'/><arg type='s' direction='in'/><arg type='s' direction='in'/><arg type='as' direction='in'/><arg type='a{sv}' direction='in'/><arg type='i' direction='in'/><arg type='u' direction='out'/></method>"
"<method name='CloseNotification'><arg type='u' direction='in'/></method>"
"<method name='GetCapabilities'><arg type='as' direction='out'/></method>"
"<method name='GetServerInformation'><arg type='s' direction='out'/><arg type='s' direction='out'/><arg type='s' direction='out'/><arg type='s' direction='out'/></method>"
"<signal name='NotificationClosed'><arg type='u'/><arg type='u'/></signal><signal name='ActionInvoked'><arg type='u'/><arg type='s'/></signal>"
"</interface></node>";
static void call(GDBusConnection *c, const gchar *sender, const gchar *path, const gchar *iface, const gchar *method, GVariant *p, GDBusMethodInvocation *inv, gpointer d) {
    if (!g_strcmp0(method, "Notify")) {
        struct timespec t; clock_gettime(CLOCK_REALTIME, &t);
        const gchar *summary; g_variant_get_child(p, 3, "&s", &summary);
        fprintf(out, "%lld %s\n", (long long)t.tv_sec * 1000000000LL + t.tv_nsec, summary); fflush(out);
        if (work_us > 0) {
            struct timespec from, now; clock_gettime(CLOCK_MONOTONIC, &from);
            do clock_gettime(CLOCK_MONOTONIC, &now); while ((now.tv_sec - from.tv_sec) * 1000000L + (now.tv_nsec - from.tv_nsec) / 1000 < work_us);
        }
        g_dbus_method_invocation_return_value(inv, g_variant_new("(u)", ++nid));
    } else if (!g_strcmp0(method, "GetCapabilities")) {
        const gchar *caps[] = {"body", "actions", NULL};
        g_dbus_method_invocation_return_value(inv, g_variant_new("(^as)", caps));
    } else if (!g_strcmp0(method, "GetServerInformation")) {
        g_dbus_method_invocation_return_value(inv, g_variant_new("(ssss)", "burst", "test", "1", "1.2"));
    } else g_dbus_method_invocation_return_value(inv, NULL);
}
static GDBusInterfaceVTable vt = { call, NULL, NULL };
static void acquired(GDBusConnection *c, const gchar *name, gpointer d) {
    GDBusNodeInfo *n = g_dbus_node_info_new_for_xml(xml, NULL);
    g_dbus_connection_register_object(c, "/org/freedesktop/Notifications", n->interfaces[0], &vt, NULL, NULL, NULL);
}
static void named(GDBusConnection *c, const gchar *name, gpointer d) { printf("ready\n"); fflush(stdout); }
int main(int argc, char **argv) {
    if (argc < 2 || argc > 3) { fprintf(stderr, "usage: burst-server FILE [WORK_US]\n"); return 64; }
    if (argc == 3) {
        char *end; errno = 0;
        work_us = strtol(argv[2], &end, 10);
        /* A second per popup is already far beyond any server: more is a typo. */
        if (errno || end == argv[2] || *end || work_us < 0 || work_us > 1000000) {
            fprintf(stderr, "burst-server: WORK_US %s is not a number of microseconds from 0 to 1000000\n", argv[2]);
            return 64;
        }
    }
    out = fopen(argv[1], "w");
    if (!out) { perror(argv[1]); return 1; }
    g_bus_own_name(G_BUS_TYPE_SESSION, "org.freedesktop.Notifications", 0, acquired, named, NULL, NULL, NULL);
    g_main_loop_run(g_main_loop_new(NULL, FALSE));
}
