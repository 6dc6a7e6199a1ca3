//! Tests of the binary's own modules (output formatting, flags, exit codes,
//! many clusters), through the library the binary is built from.

mod cli;
mod commands_collect;
mod commands_complete;
mod commands_migrate;
mod exit;
mod many;
mod many_summary;
mod output_audit;
mod output_collect;
mod output_diff;
mod output_list;
mod output_many;
mod output_migrate;
mod output_render;
mod output_table;
mod output_upgrade;
mod steps_at_exit;
mod steps_probe;
mod term;
