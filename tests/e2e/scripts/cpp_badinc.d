#include "cpp_badinc.h"
