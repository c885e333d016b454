/* placeholder: to be written */
typedef int gk5_placeholder_rfc1964_tokens;
