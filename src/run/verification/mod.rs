//! Verifying written data: the log of written blocks and the read-back
//! passes, verify state files, trim backlogs, the trigger.

pub mod config;
pub mod state_request;
pub mod trigger;
pub mod trigger_save;
pub mod trim_backlog;
pub mod verify_async;
pub mod verify_trail;
pub mod verifying;
