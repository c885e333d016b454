/* placeholder: to be written */
typedef int gk5_placeholder_rfc8009_aes_sha2;
