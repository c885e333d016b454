/* SPDX-License-Identifier: MIT */
/* Copyright (c) 2026 The gk5 authors */
/*
 * KerberosTime (RFC 4120 5.2.3): the GeneralizedTime text to seconds since
 * 1970 and back, for the decoders and the encoders alike.
 */
#include <string.h>

#include "rfc4120.h"

/* Days from 1970-01-01 to y-m-d in the proleptic Gregorian calendar:
 * counted in 400-year eras from a year that starts in March, so the leap
 * day is the last day of its year. */
static int64_t days_from_civil(int64_t y, unsigned m, unsigned d)
{
    int64_t era, yoe, doy, doe;

    y -= m <= 2;
    era = (y >= 0 ? y : y - 399) / 400;
    yoe = y - era * 400;
    doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + d - 1;
    doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return era * 146097 + doe - 719468;
}

static void civil_from_days(int64_t z, int64_t *y, unsigned *m, unsigned *d)
{
    int64_t era, doe, yoe, doy, mp;

    z += 719468;
    era = (z >= 0 ? z : z - 146096) / 146097;
    doe = z - era * 146097;
    yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
    doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    mp = (5 * doy + 2) / 153;
    *d = (unsigned)(doy - (153 * mp + 2) / 5 + 1);
    *m = (unsigned)(mp < 10 ? mp + 3 : mp - 9);
    *y = yoe + era * 400 + (*m <= 2);
}

static bool leap_year(unsigned y)
{
    return y % 4 == 0 && (y % 100 != 0 || y % 400 == 0);
}

/* n decimal digits, or -1. */
static int digits(const uint8_t *s, size_t n)
{
    int v = 0;

    for (size_t i = 0; i < n; i++) {
        if (s[i] < '0' || s[i] > '9') {
            return -1;
        }
        v = v * 10 + (s[i] - '0');
    }
    return v;
}

/* RFC 4120 5.2.3: KerberosTime is a GeneralizedTime "YYYYMMDDHHMMSSZ",
 * UTC with no fraction, and never the leap second's 60. */
uint32_t gk5i_krb_time_parse(const uint8_t *s, size_t len, gk5i_krb_time *t)
{
    static const uint8_t mdays[12] = {31, 28, 31, 30, 31, 30,
                                      31, 31, 30, 31, 30, 31};
    int year, mon, day, hour, min, sec;

    if (t == NULL) {
        return GK5_ERR_INVALID_ARGUMENT;
    }
    *t = 0;
    if (s == NULL || len != 15 || s[14] != 'Z') {
        return s == NULL && len != 0 ? GK5_ERR_INVALID_ARGUMENT : GK5_ERR_DER;
    }
    year = digits(s, 4);
    mon = digits(s + 4, 2);
    day = digits(s + 6, 2);
    hour = digits(s + 8, 2);
    min = digits(s + 10, 2);
    sec = digits(s + 12, 2);
    if (year < 0 || mon < 1 || mon > 12 || day < 1 || hour < 0 || hour > 23 ||
        min < 0 || min > 59 || sec < 0 || sec > 59) {
        return GK5_ERR_DER;
    }
    if (day > mdays[mon - 1] + (mon == 2 && leap_year((unsigned)year))) {
        return GK5_ERR_DER;
    }
    *t = days_from_civil(year, (unsigned)mon, (unsigned)day) * 86400 +
         hour * 3600 + min * 60 + sec;
    return GK5_OK;
}

uint32_t gk5i_krb_time_format(gk5i_krb_time t, uint8_t out[15])
{
    int64_t days, secs, year;
    unsigned mon, day;
    unsigned f[6];

    if (out == NULL) {
        return GK5_ERR_INVALID_ARGUMENT;
    }
    memset(out, '0', 15);
    days = t / 86400;
    secs = t % 86400;
    if (secs < 0) {
        secs += 86400;
        days--;
    }
    civil_from_days(days, &year, &mon, &day);
    if (year < 0 || year > 9999) {
        return GK5_ERR_INVALID_ARGUMENT;
    }
    f[0] = (unsigned)year / 100;
    f[1] = (unsigned)year % 100;
    f[2] = mon;
    f[3] = day;
    f[4] = (unsigned)(secs / 3600);
    f[5] = (unsigned)(secs / 60 % 60);
    for (size_t i = 0; i < 6; i++) {
        out[2 * i] = (uint8_t)('0' + f[i] / 10);
        out[2 * i + 1] = (uint8_t)('0' + f[i] % 10);
    }
    out[12] = (uint8_t)('0' + secs % 60 / 10);
    out[13] = (uint8_t)('0' + secs % 10);
    out[14] = 'Z';
    return GK5_OK;
}
