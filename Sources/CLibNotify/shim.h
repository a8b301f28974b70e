#ifndef HERALD_CLIBNOTIFY_SHIM_H
#define HERALD_CLIBNOTIFY_SHIM_H

#include <libnotify/notify.h>
#include <gio/gio.h>

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

/// Wraps g_object_get for the integer "closed-reason" property.
static inline int herald_notification_closed_reason(NotifyNotification *notification) {
    int reason = -1;
    g_object_get(G_OBJECT(notification), "closed-reason", &reason, NULL);
    return reason;
}

#endif
