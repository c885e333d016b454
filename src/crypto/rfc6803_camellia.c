/* placeholder: to be written */
typedef int gk5_placeholder_rfc6803_camellia;
