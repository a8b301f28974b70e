#ifndef HERALD_CCANBERRA_SHIM_H
#define HERALD_CCANBERRA_SHIM_H

#include <canberra.h>

/* ca_context_play and ca_context_change_props are variadic, which Swift cannot call. */

/// Names the application to the sound server (shown in its mixer).
static inline int herald_canberra_set_app(ca_context *context, const char *name, const char *id, const char *icon) {
    return ca_context_change_props(context, CA_PROP_APPLICATION_NAME, name, CA_PROP_APPLICATION_ID, id,
                                   CA_PROP_APPLICATION_ICON_NAME, icon, NULL);
}

/// Plays a sound-theme event (`alarm-clock-elapsed`), or a file when `path` is not NULL.
static inline int herald_canberra_play(ca_context *context, uint32_t id, const char *event_id, const char *path,
                                       const char *description) {
    if (path)
        return ca_context_play(context, id, CA_PROP_MEDIA_FILENAME, path, CA_PROP_EVENT_DESCRIPTION, description,
                               CA_PROP_MEDIA_ROLE, "event", NULL);
    return ca_context_play(context, id, CA_PROP_EVENT_ID, event_id, CA_PROP_EVENT_DESCRIPTION, description,
                           CA_PROP_MEDIA_ROLE, "event", NULL);
}

#endif
