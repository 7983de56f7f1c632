/* version.h — gauntlet's version, one place. */
#ifndef GAUNTLET_VERSION_H
#define GAUNTLET_VERSION_H

#define GAUNTLET_VERSION "0.1.0"

#endif
