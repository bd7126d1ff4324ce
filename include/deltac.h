/*
 * deltac: Delta Lake in C. The umbrella header; each concept has its own
 * header under deltac/.
 */
#ifndef DELTAC_H
#define DELTAC_H

#include "deltac/alloc.h"
#include "deltac/arrow_abi.h"
#include "deltac/error.h"
#include "deltac/maintenance.h"
#include "deltac/parquet.h"
#include "deltac/parquet_writer.h"
#include "deltac/scan.h"
#include "deltac/changes.h"
#include "deltac/storage.h"
#include "deltac/table.h"
#include "deltac/version.h"
#include "deltac/write.h"

#endif
