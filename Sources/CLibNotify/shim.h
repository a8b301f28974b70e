#ifndef HERALD_CLIBNOTIFY_SHIM_H
#define HERALD_CLIBNOTIFY_SHIM_H

#include <libnotify/notify.h>
#include <gio/gio.h>

/* From gio-unix-2.0's gunixfdlist.h, whose directory libnotify's pkg-config does not name. */
extern gint g_unix_fd_list_get(GUnixFDList *list, gint index_, GError **error);

/* Swift cannot import GLib's function-like macros or variadic functions.
 * These static inline wrappers expose exactly what HeraldNotify needs. */

/// Wraps the g_signal_connect macro for a signal whose handler takes (instance, user_data).
static inline unsigned long herald_signal_connect_closed(NotifyNotification *notification,
                                                         void (*handler)(NotifyNotification *, void *),
                                                         void *user_data) {
    return g_signal_connect(notification, "closed", G_CALLBACK(handler), user_data);
}

/// The NotifyActionCallback signature, for Swift closures passed as C function pointers.
typedef void (*herald_action_callback)(NotifyNotification *notification, char *action, void *user_data);

/// Wraps notify_notification_add_action, taking a plain function pointer.
static inline void herald_add_action(NotifyNotification *notification, const char *action, const char *label,
                                     herald_action_callback callback, void *user_data, void (*free_func)(void *)) {
    notify_notification_add_action(notification, action, label, (NotifyActionCallback)callback, user_data,
                                   (GFreeFunc)free_func);
}

/// Wraps g_signal_connect for GDBusConnection's "closed" signal.
static inline unsigned long herald_connection_on_closed(GDBusConnection *connection,
                                                        void (*handler)(GDBusConnection *, gboolean, GError *, void *),
                                                        void *user_data) {
    return g_signal_connect(connection, "closed", G_CALLBACK(handler), user_data);
}

/// Subscribes to NameOwnerChanged for one well-known name on `connection`.
static inline unsigned int herald_watch_name_owner(GDBusConnection *connection, const char *name,
                                                   GDBusSignalCallback callback, void *user_data) {
    return g_dbus_connection_signal_subscribe(connection, "org.freedesktop.DBus", "org.freedesktop.DBus",
                                              "NameOwnerChanged", "/org/freedesktop/DBus", name,
                                              G_DBUS_SIGNAL_FLAGS_NONE, callback, user_data, NULL);
}

/// Subscribes to the notification server's NotificationClosed on `connection` (every id: the
/// notifier keeps those that come before the answer to the show that made them).
static inline unsigned int herald_watch_notification_closed(GDBusConnection *connection, GDBusSignalCallback callback,
                                                            void *user_data) {
    return g_dbus_connection_signal_subscribe(connection, "org.freedesktop.Notifications", "org.freedesktop.Notifications",
                                              "NotificationClosed", "/org/freedesktop/Notifications", NULL,
                                              G_DBUS_SIGNAL_FLAGS_NONE, callback, user_data, NULL);
}

/// The id and reason of a NotificationClosed "(uu)"; 0 when the parameters are not that.
static inline int herald_closed_signal(GVariant *parameters, guint32 *id, guint32 *reason) {
    if (!g_variant_is_of_type(parameters, G_VARIANT_TYPE("(uu)"))) return 0;
    g_variant_get(parameters, "(uu)", id, reason);
    return 1;
}

/// An owner in a NameOwnerChanged signal: the old one (`which` 1) or the new one (2), or ""
/// for none.
static inline const char *herald_name_owner_changed_owner(GVariant *parameters, gsize which) {
    if (!g_variant_is_of_type(parameters, G_VARIANT_TYPE("(sss)")) || which < 1 || which > 2) return "";
    GVariant *child = g_variant_get_child_value(parameters, which);
    const char *owner = g_variant_get_string(child, NULL);
    g_variant_unref(child);  /* the string stays valid: the parent holds it */
    return owner;
}

/// Wraps G_OBJECT(...) + g_object_unref for a NotifyNotification.
static inline void herald_notification_unref(NotifyNotification *notification) {
    g_object_unref(G_OBJECT(notification));
}

/// Wraps g_object_get for the integer "id" property: the server's id for the popup.
static inline int herald_notification_id(NotifyNotification *notification) {
    int id = 0;
    g_object_get(G_OBJECT(notification), "id", &id, NULL);
    return id;
}

/// Wraps g_object_get for the integer "closed-reason" property.
static inline int herald_notification_closed_reason(NotifyNotification *notification) {
    int reason = -1;
    g_object_get(G_OBJECT(notification), "closed-reason", &reason, NULL);
    return reason;
}

/// Wraps g_signal_connect for a GSettings "changed::KEY" signal (handler: settings, key, data).
static inline unsigned long herald_settings_on_changed(GSettings *settings, const char *signal,
                                                       void (*handler)(GSettings *, const char *, void *),
                                                       void *user_data) {
    return g_signal_connect(settings, signal, G_CALLBACK(handler), user_data);
}

/// GSettings for `schema_id` when that schema is installed (g_settings_new aborts otherwise).
static inline GSettings *herald_settings_if_installed(const char *schema_id, const char *key) {
    GSettingsSchemaSource *source = g_settings_schema_source_get_default();
    if (source == NULL) return NULL;
    GSettingsSchema *schema = g_settings_schema_source_lookup(source, schema_id, TRUE);
    if (schema == NULL) return NULL;
    gboolean has = g_settings_schema_has_key(schema, key);
    GSettings *settings = has ? g_settings_new_full(schema, NULL, NULL) : NULL;
    g_settings_schema_unref(schema);
    return settings;
}

/// A boolean inside a "(v)" or "(b)" reply, or -1 when it holds none.
static inline int herald_reply_boolean(GVariant *reply) {
    if (reply == NULL || g_variant_n_children(reply) < 1) return -1;
    GVariant *child = g_variant_get_child_value(reply, 0);
    if (g_variant_is_of_type(child, G_VARIANT_TYPE_VARIANT)) {
        GVariant *inner = g_variant_get_variant(child);
        g_variant_unref(child);
        child = inner;
    }
    int value = g_variant_is_of_type(child, G_VARIANT_TYPE_BOOLEAN) ? (g_variant_get_boolean(child) ? 1 : 0) : -1;
    g_variant_unref(child);
    return value;
}

/// Whether a "(as)" reply lists `value`: -1 when it is no such reply.
static inline int herald_reply_lists(GVariant *reply, const char *value) {
    if (reply == NULL || !g_variant_is_of_type(reply, G_VARIANT_TYPE("(as)"))) return -1;
    GVariant *list = g_variant_get_child_value(reply, 0);
    int found = 0;
    for (gsize k = 0; k < g_variant_n_children(list) && !found; k++) {
        GVariant *item = g_variant_get_child_value(list, k);
        found = g_strcmp0(g_variant_get_string(item, NULL), value) == 0;
        g_variant_unref(item);
    }
    g_variant_unref(list);
    return found;
}

/// Whether a PropertiesChanged "(sa{sv}as)" names `property` (changed or invalidated).
static inline int herald_properties_changed_names(GVariant *parameters, const char *property) {
    if (!g_variant_is_of_type(parameters, G_VARIANT_TYPE("(sa{sv}as)"))) return 0;
    GVariant *changed = g_variant_get_child_value(parameters, 1);
    GVariant *value = g_variant_lookup_value(changed, property, NULL);
    g_variant_unref(changed);
    if (value != NULL) { g_variant_unref(value); return 1; }
    GVariant *invalidated = g_variant_get_child_value(parameters, 2);
    int found = 0;
    for (gsize k = 0; k < g_variant_n_children(invalidated) && !found; k++) {
        GVariant *name = g_variant_get_child_value(invalidated, k);
        found = g_strcmp0(g_variant_get_string(name, NULL), property) == 0;
        g_variant_unref(name);
    }
    g_variant_unref(invalidated);
    return found;
}

/// Subscribes to logind's PrepareForSleep signal on the system bus.
static inline unsigned int herald_watch_prepare_for_sleep(GDBusConnection *connection, GDBusSignalCallback callback,
                                                          void *user_data) {
    return g_dbus_connection_signal_subscribe(connection, "org.freedesktop.login1", "org.freedesktop.login1.Manager",
                                              "PrepareForSleep", "/org/freedesktop/login1", NULL,
                                              G_DBUS_SIGNAL_FLAGS_NONE, callback, user_data, NULL);
}

/// Asks logind for an inhibitor lock (Inhibit(what, who, why, mode)), asynchronously; the
/// answer comes to `callback` on the thread of the connection's main context.
static inline void herald_logind_inhibit(GDBusConnection *connection, const char *what, const char *who, const char *why,
                                         const char *mode, GAsyncReadyCallback callback, void *user_data) {
    g_dbus_connection_call_with_unix_fd_list(connection, "org.freedesktop.login1", "/org/freedesktop/login1",
                                             "org.freedesktop.login1.Manager", "Inhibit",
                                             g_variant_new("(ssss)", what, who, why, mode), G_VARIANT_TYPE("(h)"),
                                             G_DBUS_CALL_FLAGS_NONE, 5000, NULL, NULL, callback, user_data);
}

/// The descriptor of an Inhibit answer (the caller owns it), or -1 with `error` set.
static inline int herald_logind_inhibit_finish(GDBusConnection *connection, GAsyncResult *result, GError **error) {
    GUnixFDList *fds = NULL;
    GVariant *reply = g_dbus_connection_call_with_unix_fd_list_finish(connection, &fds, result, error);
    if (reply == NULL) { if (fds) g_object_unref(fds); return -1; }
    gint32 index = -1;
    g_variant_get(reply, "(h)", &index);
    g_variant_unref(reply);
    int fd = (fds != NULL && index >= 0) ? g_unix_fd_list_get(fds, index, error) : -1;
    if (fds) g_object_unref(fds);
    return fd;
}

#endif
