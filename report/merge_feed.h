/* merge_feed.h - several recordings into one report: their records fed
 * to the pipeline (rp_new_multi) so that sessions come out in the order
 * of their end times (wall clock, each recording's own clock offset). */
#ifndef RS_MERGE_FEED_H
#define RS_MERGE_FEED_H

#include <stddef.h>
#include "../format/rsfile.h"
#include "pipeline.h"

/* reads every reader to its end; st[k] = reader k's final status (RSF_END
 * or RSF_DAMAGED). -1 when out of memory or the pipeline failed. */
int merge_feed(struct rp *p, struct rsf_reader **rd, size_t n, enum rsf_status *st);

#endif
