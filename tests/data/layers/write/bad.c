/* A writer that reaches up into watch/: the rule must catch it. */
#include "watch/watch.h"
#include "svg.h"
