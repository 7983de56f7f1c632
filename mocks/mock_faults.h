/* mock_faults.h — applying a turn's faults to a rendered reply (faults.c). */
#ifndef GT_MOCK_FAULTS_H
#define GT_MOCK_FAULTS_H

#include "mock_impl.h"

struct MHD_Response;
struct MHD_Connection;
struct mock_timer;

/* Apply the body-changing faults (status, body, content type, malformed SSE
 * line, padding, cut after event) to `reply`; timing faults stay in
 * reply->faults for mock_response_create. Returns 0 or -1 (out of memory). */
int mock_faults_apply(mock_reply *reply, const mock_faults *faults);

/* An MHD response serving reply->body with drip and cut applied; takes the
 * body (reply->body becomes NULL). Its pauses park `connection` (the one it
 * is queued on) on `timer`. NULL when out of memory. */
struct MHD_Response *mock_response_create(mock_reply *reply, struct MHD_Connection *connection,
                                          struct mock_timer *timer, const volatile bool *stopping);

#endif
