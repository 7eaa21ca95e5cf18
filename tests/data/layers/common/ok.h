/* Allowed: common/ includes itself. */
#include "common/tool.h"
