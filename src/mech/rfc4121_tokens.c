/* placeholder: to be written */
typedef int gk5_placeholder_rfc4121_tokens;
