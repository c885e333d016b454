/* SPDX-License-Identifier: MIT */
/* Copyright (c) 2026 The gk5 authors */
#include "krb5_int.h"
