/* Entry points for the dynamic slots: functions the app gets through
 * eglGetProcAddress that the generated model does not know. Their signatures
 * are unknown, so each is a pure jump that leaves every argument register
 * untouched: trampoline i loads its slot number into r11 (scratch in the SysV
 * ABI) and jumps to the common part, which jumps through the calling thread's
 * table like every generated entry point. Each trampoline is 16 bytes. */
#include "gltrace/api/limits.h"

#define DYNAMIC_SLOT_COUNT 512

        .text
        .p2align 4
        .globl gltrace_dynamic_trampolines
        .hidden gltrace_dynamic_trampolines
        .type gltrace_dynamic_trampolines, @function
gltrace_dynamic_trampolines:
        .set slot, GLTRACE_FUNCTION_ID_LIMIT
        .rept DYNAMIC_SLOT_COUNT
        .p2align 4
        movl $slot, %r11d
        jmp gltrace_dynamic_common
        .set slot, slot + 1
        .endr

        .p2align 4
gltrace_dynamic_common:
        movq gltrace_thread_table@gottpoff(%rip), %rax
        movq %fs:(%rax), %rax
        testq %rax, %rax
        jnz 1f
        movq gltrace_global_table(%rip), %rax
1:      jmp *(%rax,%r11,8)
        .size gltrace_dynamic_trampolines, . - gltrace_dynamic_trampolines

        .section .note.GNU-stack,"",@progbits
