//! BPF helper function ids (`enum bpf_func_id` in the kernel's uapi `bpf.h`).
//!
//! The ids are positions in the kernel's `__BPF_FUNC_MAPPER` list; the table of
//! names below follows that list in order (kernel uapi of Linux 6.1+).

pub const MAP_LOOKUP_ELEM: i32 = 1;
pub const MAP_UPDATE_ELEM: i32 = 2;
pub const MAP_DELETE_ELEM: i32 = 3;
pub const PROBE_READ: i32 = 4;
pub const KTIME_GET_NS: i32 = 5;
pub const TRACE_PRINTK: i32 = 6;
pub const GET_PRANDOM_U32: i32 = 7;
pub const GET_SMP_PROCESSOR_ID: i32 = 8;
pub const TAIL_CALL: i32 = 12;
pub const GET_CURRENT_PID_TGID: i32 = 14;
pub const GET_CURRENT_UID_GID: i32 = 15;
pub const GET_CURRENT_COMM: i32 = 16;
pub const PERF_EVENT_READ: i32 = 22;
pub const PERF_EVENT_OUTPUT: i32 = 25;
pub const GET_STACKID: i32 = 27;
pub const GET_CURRENT_TASK: i32 = 35;
pub const PROBE_WRITE_USER: i32 = 36;
pub const GET_NUMA_NODE_ID: i32 = 42;
pub const PROBE_READ_STR: i32 = 45;
pub const OVERRIDE_RETURN: i32 = 58;
pub const GET_STACK: i32 = 67;
pub const GET_CURRENT_CGROUP_ID: i32 = 80;
pub const MAP_PUSH_ELEM: i32 = 87;
pub const MAP_POP_ELEM: i32 = 88;
pub const SPIN_LOCK: i32 = 93;
pub const SPIN_UNLOCK: i32 = 94;
pub const SEND_SIGNAL: i32 = 109;
pub const PROBE_READ_USER: i32 = 112;
pub const PROBE_READ_KERNEL: i32 = 113;
pub const PROBE_READ_USER_STR: i32 = 114;
pub const PROBE_READ_KERNEL_STR: i32 = 115;
pub const SEND_SIGNAL_THREAD: i32 = 117;
pub const JIFFIES64: i32 = 118;
pub const GET_NS_CURRENT_PID_TGID: i32 = 120;
pub const GET_CURRENT_ANCESTOR_CGROUP_ID: i32 = 123;
pub const KTIME_GET_BOOT_NS: i32 = 125;
pub const RINGBUF_OUTPUT: i32 = 130;
pub const RINGBUF_RESERVE: i32 = 131;
pub const RINGBUF_SUBMIT: i32 = 132;
pub const RINGBUF_DISCARD: i32 = 133;
pub const RINGBUF_QUERY: i32 = 134;
pub const GET_TASK_STACK: i32 = 141;
pub const D_PATH: i32 = 147;
pub const COPY_FROM_USER: i32 = 148;
pub const PER_CPU_PTR: i32 = 153;
pub const THIS_CPU_PTR: i32 = 154;
pub const GET_CURRENT_TASK_BTF: i32 = 158;
pub const KTIME_GET_COARSE_NS: i32 = 160;
pub const FOR_EACH_MAP_ELEM: i32 = 164;
pub const SNPRINTF: i32 = 165;
pub const GET_FUNC_IP: i32 = 173;
pub const GET_ATTACH_COOKIE: i32 = 174;
pub const TASK_PT_REGS: i32 = 175;
pub const GET_BRANCH_SNAPSHOT: i32 = 176;
pub const TRACE_VPRINTK: i32 = 177;
pub const FIND_VMA: i32 = 180;
pub const LOOP: i32 = 181;
pub const STRNCMP: i32 = 182;
pub const GET_FUNC_ARG: i32 = 183;
pub const GET_FUNC_RET: i32 = 184;
pub const GET_FUNC_ARG_CNT: i32 = 185;
pub const COPY_FROM_USER_TASK: i32 = 191;
pub const MAP_LOOKUP_PERCPU_ELEM: i32 = 195;
pub const KTIME_GET_TAI_NS: i32 = 208;

/// The kernel's name of helper `id` without the `bpf_` prefix, e.g. `map_lookup_elem`.
pub fn helper_name(id: i32) -> Option<&'static str> {
    if id <= 0 {
        return None;
    }
    HELPER_NAMES.get(id as usize).copied()
}

/// Helper names indexed by helper id, from the kernel's uapi `enum bpf_func_id` order.
pub(crate) const HELPER_NAMES: [&str; 210] = [
    "unspec",
    "map_lookup_elem",
    "map_update_elem",
    "map_delete_elem",
    "probe_read",
    "ktime_get_ns",
    "trace_printk",
    "get_prandom_u32",
    "get_smp_processor_id",
    "skb_store_bytes",
    "l3_csum_replace",
    "l4_csum_replace",
    "tail_call",
    "clone_redirect",
    "get_current_pid_tgid",
    "get_current_uid_gid",
    "get_current_comm",
    "get_cgroup_classid",
    "skb_vlan_push",
    "skb_vlan_pop",
    "skb_get_tunnel_key",
    "skb_set_tunnel_key",
    "perf_event_read",
    "redirect",
    "get_route_realm",
    "perf_event_output",
    "skb_load_bytes",
    "get_stackid",
    "csum_diff",
    "skb_get_tunnel_opt",
    "skb_set_tunnel_opt",
    "skb_change_proto",
    "skb_change_type",
    "skb_under_cgroup",
    "get_hash_recalc",
    "get_current_task",
    "probe_write_user",
    "current_task_under_cgroup",
    "skb_change_tail",
    "skb_pull_data",
    "csum_update",
    "set_hash_invalid",
    "get_numa_node_id",
    "skb_change_head",
    "xdp_adjust_head",
    "probe_read_str",
    "get_socket_cookie",
    "get_socket_uid",
    "set_hash",
    "setsockopt",
    "skb_adjust_room",
    "redirect_map",
    "sk_redirect_map",
    "sock_map_update",
    "xdp_adjust_meta",
    "perf_event_read_value",
    "perf_prog_read_value",
    "getsockopt",
    "override_return",
    "sock_ops_cb_flags_set",
    "msg_redirect_map",
    "msg_apply_bytes",
    "msg_cork_bytes",
    "msg_pull_data",
    "bind",
    "xdp_adjust_tail",
    "skb_get_xfrm_state",
    "get_stack",
    "skb_load_bytes_relative",
    "fib_lookup",
    "sock_hash_update",
    "msg_redirect_hash",
    "sk_redirect_hash",
    "lwt_push_encap",
    "lwt_seg6_store_bytes",
    "lwt_seg6_adjust_srh",
    "lwt_seg6_action",
    "rc_repeat",
    "rc_keydown",
    "skb_cgroup_id",
    "get_current_cgroup_id",
    "get_local_storage",
    "sk_select_reuseport",
    "skb_ancestor_cgroup_id",
    "sk_lookup_tcp",
    "sk_lookup_udp",
    "sk_release",
    "map_push_elem",
    "map_pop_elem",
    "map_peek_elem",
    "msg_push_data",
    "msg_pop_data",
    "rc_pointer_rel",
    "spin_lock",
    "spin_unlock",
    "sk_fullsock",
    "tcp_sock",
    "skb_ecn_set_ce",
    "get_listener_sock",
    "skc_lookup_tcp",
    "tcp_check_syncookie",
    "sysctl_get_name",
    "sysctl_get_current_value",
    "sysctl_get_new_value",
    "sysctl_set_new_value",
    "strtol",
    "strtoul",
    "sk_storage_get",
    "sk_storage_delete",
    "send_signal",
    "tcp_gen_syncookie",
    "skb_output",
    "probe_read_user",
    "probe_read_kernel",
    "probe_read_user_str",
    "probe_read_kernel_str",
    "tcp_send_ack",
    "send_signal_thread",
    "jiffies64",
    "read_branch_records",
    "get_ns_current_pid_tgid",
    "xdp_output",
    "get_netns_cookie",
    "get_current_ancestor_cgroup_id",
    "sk_assign",
    "ktime_get_boot_ns",
    "seq_printf",
    "seq_write",
    "sk_cgroup_id",
    "sk_ancestor_cgroup_id",
    "ringbuf_output",
    "ringbuf_reserve",
    "ringbuf_submit",
    "ringbuf_discard",
    "ringbuf_query",
    "csum_level",
    "skc_to_tcp6_sock",
    "skc_to_tcp_sock",
    "skc_to_tcp_timewait_sock",
    "skc_to_tcp_request_sock",
    "skc_to_udp6_sock",
    "get_task_stack",
    "load_hdr_opt",
    "store_hdr_opt",
    "reserve_hdr_opt",
    "inode_storage_get",
    "inode_storage_delete",
    "d_path",
    "copy_from_user",
    "snprintf_btf",
    "seq_printf_btf",
    "skb_cgroup_classid",
    "redirect_neigh",
    "per_cpu_ptr",
    "this_cpu_ptr",
    "redirect_peer",
    "task_storage_get",
    "task_storage_delete",
    "get_current_task_btf",
    "bprm_opts_set",
    "ktime_get_coarse_ns",
    "ima_inode_hash",
    "sock_from_file",
    "check_mtu",
    "for_each_map_elem",
    "snprintf",
    "sys_bpf",
    "btf_find_by_name_kind",
    "sys_close",
    "timer_init",
    "timer_set_callback",
    "timer_start",
    "timer_cancel",
    "get_func_ip",
    "get_attach_cookie",
    "task_pt_regs",
    "get_branch_snapshot",
    "trace_vprintk",
    "skc_to_unix_sock",
    "kallsyms_lookup_name",
    "find_vma",
    "loop",
    "strncmp",
    "get_func_arg",
    "get_func_ret",
    "get_func_arg_cnt",
    "get_retval",
    "set_retval",
    "xdp_get_buff_len",
    "xdp_load_bytes",
    "xdp_store_bytes",
    "copy_from_user_task",
    "skb_set_tstamp",
    "ima_file_hash",
    "kptr_xchg",
    "map_lookup_percpu_elem",
    "skc_to_mptcp_sock",
    "dynptr_from_mem",
    "ringbuf_reserve_dynptr",
    "ringbuf_submit_dynptr",
    "ringbuf_discard_dynptr",
    "dynptr_read",
    "dynptr_write",
    "dynptr_data",
    "tcp_raw_gen_syncookie_ipv4",
    "tcp_raw_gen_syncookie_ipv6",
    "tcp_raw_check_syncookie_ipv4",
    "tcp_raw_check_syncookie_ipv6",
    "ktime_get_tai_ns",
    "user_ringbuf_drain",
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_match_ids() {
        let pairs = [
            (MAP_LOOKUP_ELEM, "map_lookup_elem"),
            (MAP_UPDATE_ELEM, "map_update_elem"),
            (MAP_DELETE_ELEM, "map_delete_elem"),
            (PROBE_READ, "probe_read"),
            (KTIME_GET_NS, "ktime_get_ns"),
            (TRACE_PRINTK, "trace_printk"),
            (GET_PRANDOM_U32, "get_prandom_u32"),
            (GET_SMP_PROCESSOR_ID, "get_smp_processor_id"),
            (TAIL_CALL, "tail_call"),
            (GET_CURRENT_PID_TGID, "get_current_pid_tgid"),
            (GET_CURRENT_UID_GID, "get_current_uid_gid"),
            (GET_CURRENT_COMM, "get_current_comm"),
            (PERF_EVENT_READ, "perf_event_read"),
            (PERF_EVENT_OUTPUT, "perf_event_output"),
            (GET_STACKID, "get_stackid"),
            (GET_CURRENT_TASK, "get_current_task"),
            (PROBE_WRITE_USER, "probe_write_user"),
            (GET_NUMA_NODE_ID, "get_numa_node_id"),
            (PROBE_READ_STR, "probe_read_str"),
            (OVERRIDE_RETURN, "override_return"),
            (GET_STACK, "get_stack"),
            (GET_CURRENT_CGROUP_ID, "get_current_cgroup_id"),
            (MAP_PUSH_ELEM, "map_push_elem"),
            (MAP_POP_ELEM, "map_pop_elem"),
            (SPIN_LOCK, "spin_lock"),
            (SPIN_UNLOCK, "spin_unlock"),
            (SEND_SIGNAL, "send_signal"),
            (PROBE_READ_USER, "probe_read_user"),
            (PROBE_READ_KERNEL, "probe_read_kernel"),
            (PROBE_READ_USER_STR, "probe_read_user_str"),
            (PROBE_READ_KERNEL_STR, "probe_read_kernel_str"),
            (SEND_SIGNAL_THREAD, "send_signal_thread"),
            (JIFFIES64, "jiffies64"),
            (GET_NS_CURRENT_PID_TGID, "get_ns_current_pid_tgid"),
            (
                GET_CURRENT_ANCESTOR_CGROUP_ID,
                "get_current_ancestor_cgroup_id",
            ),
            (KTIME_GET_BOOT_NS, "ktime_get_boot_ns"),
            (RINGBUF_OUTPUT, "ringbuf_output"),
            (RINGBUF_RESERVE, "ringbuf_reserve"),
            (RINGBUF_SUBMIT, "ringbuf_submit"),
            (RINGBUF_DISCARD, "ringbuf_discard"),
            (RINGBUF_QUERY, "ringbuf_query"),
            (GET_TASK_STACK, "get_task_stack"),
            (D_PATH, "d_path"),
            (COPY_FROM_USER, "copy_from_user"),
            (PER_CPU_PTR, "per_cpu_ptr"),
            (THIS_CPU_PTR, "this_cpu_ptr"),
            (GET_CURRENT_TASK_BTF, "get_current_task_btf"),
            (KTIME_GET_COARSE_NS, "ktime_get_coarse_ns"),
            (FOR_EACH_MAP_ELEM, "for_each_map_elem"),
            (SNPRINTF, "snprintf"),
            (GET_FUNC_IP, "get_func_ip"),
            (GET_ATTACH_COOKIE, "get_attach_cookie"),
            (TASK_PT_REGS, "task_pt_regs"),
            (GET_BRANCH_SNAPSHOT, "get_branch_snapshot"),
            (TRACE_VPRINTK, "trace_vprintk"),
            (FIND_VMA, "find_vma"),
            (LOOP, "loop"),
            (STRNCMP, "strncmp"),
            (GET_FUNC_ARG, "get_func_arg"),
            (GET_FUNC_RET, "get_func_ret"),
            (GET_FUNC_ARG_CNT, "get_func_arg_cnt"),
            (COPY_FROM_USER_TASK, "copy_from_user_task"),
            (MAP_LOOKUP_PERCPU_ELEM, "map_lookup_percpu_elem"),
            (KTIME_GET_TAI_NS, "ktime_get_tai_ns"),
        ];
        for (id, name) in pairs {
            assert_eq!(helper_name(id), Some(name), "helper {id}");
        }
        assert_eq!(helper_name(0), None);
        assert_eq!(helper_name(-1), None);
        assert_eq!(helper_name(100_000), None);
    }
}
