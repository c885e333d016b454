/* placeholder */
#include "vecfile.h"
