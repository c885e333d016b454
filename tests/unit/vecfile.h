#ifndef VECFILE_H
#define VECFILE_H
#endif
