/*
 * Raw UCT transport (issue 12): UCX's transport layer, the layer both MPIs sit on where
 * they run over UCX. Compiled only where <uct/api/uct.h> exists; libuct and libucs are
 * loaded with dlopen at run time, so a shim built here loads and runs where UCX is absent
 * (lg_uct_load then says why).
 *
 * Why C: UCT's data path (uct_ep_am_short, uct_worker_progress, ...) is static inline over
 * the interface's operation table; calling it from here keeps the layouts the header's
 * own. Nothing in this file references a UCX symbol at link time: every exported UCT/UCS
 * function is called through a pointer from dlsym (typed with __typeof__ of its
 * declaration).
 *
 * Messages: active messages with an 8-byte header that carries the message's total size
 * (UINT64_MAX: the client's stop mark). Per size, by the limits the interface reports:
 * am_short where header + payload fit, else one am_bcopy, else am_zcopy fragments where
 * the interface has them, else am_bcopy fragments. AMs on one endpoint arrive in order.
 * The receiver's handler copies the payload into its buffer and queues completed sizes.
 *
 * The rendezvous way, where UCT's cma transport is here and the caller chose it for a
 * size (lg_uct_set_rndv_from): the sender's active message carries only the size (RTS);
 * the receiver reads the payload from the sender's buffer with one get_zcopy over cma
 * (process_vm_readv) and answers with a FIN, after which the sender's call returns. It is
 * what UCX's own rendezvous does between two processes of one host (one copy, where the
 * fragments copy twice), so that the raw layer stays a floor under MPI's rendezvous.
 */
#include <uct/api/uct.h>
#include <ucs/async/async_fwd.h>
#include <dlfcn.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

#define LG_AM_ID 7
#define LG_STOP UINT64_MAX
#define LG_FIN (UINT64_MAX - 1)
#define LG_RTS (1ull << 62)
#define LG_RING 4096
#define LG_STALL_NS 30000000000ull

#define FN(name) __typeof__(&name) name
static struct {
    int tried, ok;
    char why[256];
    FN(uct_query_components);
    FN(uct_release_component_list);
    FN(uct_component_query);
    FN(uct_md_config_read);
    FN(uct_md_open);
    FN(uct_md_close);
    FN(uct_md_query);
    FN(uct_md_query_tl_resources);
    FN(uct_release_tl_resource_list);
    FN(uct_md_iface_config_read);
    FN(uct_config_release);
    FN(uct_iface_open);
    FN(uct_iface_close);
    FN(uct_iface_query);
    FN(uct_iface_get_device_address);
    FN(uct_iface_get_address);
    FN(uct_iface_is_reachable);
    FN(uct_iface_set_am_handler);
    FN(uct_ep_create);
    FN(uct_ep_destroy);
    FN(uct_ep_get_address);
    FN(uct_ep_connect_to_ep);
    FN(uct_worker_create);
    FN(uct_worker_destroy);
    FN(uct_md_mem_reg);
    FN(uct_md_mem_dereg);
    FN(ucs_async_context_create);
    FN(ucs_async_context_destroy);
} L;

typedef struct lg_uct {
    ucs_async_context_t *async;
    uct_worker_h worker;
    uct_md_h md;
    uct_iface_h iface;
    uct_ep_h ep;
    uct_iface_attr_t attr;
    int ep_mode; /* CONNECT_TO_EP only: endpoints connect to each other */
    char tl[UCT_TL_NAME_MAX], dev[UCT_DEVICE_NAME_MAX];
    char *sbuf, *rbuf;
    size_t cap;
    uct_mem_h memh; /* sbuf's registration, where its memory domain needs one */
    int zcopy, registered;
    uct_completion_t comp;
    /* receive side: fragments as they arrived, taken in order by lg_uct_recv */
    size_t rx_off;
    struct {
        char *data; /* payload of a descriptor UCT lets us hold; NULL: copied already */
        size_t len;
        uint64_t total;
        int last;
    } ring[LG_RING];
    unsigned head, tail;
    int overflow, stopped;
    unsigned spins;
    /* The rendezvous way: UCT cma on the same worker, its endpoint to the peer, the
     * peer's send buffer; rndv_from: the first size sent so (0: none); fins: FINs come. */
    uct_md_h get_md;
    uct_iface_h get_iface;
    uct_ep_h get_ep;
    uct_iface_attr_t get_attr;
    uint64_t peer_sbuf;
    size_t rndv_from;
    unsigned fins;
    uct_completion_t get_comp;
} lg_uct;

static void say(char *why, size_t n, const char *fmt, ...) {
    va_list ap;
    if (!why || !n)
        return;
    va_start(ap, fmt);
    vsnprintf(why, n, fmt, ap);
    va_end(ap);
}

/* Loads libuct and libucs once. 0: loaded; -1: not, with the reason in `why`. */
int lg_uct_load(char *why, size_t n) {
    if (!L.tried) {
        L.tried = 1;
        const char *e = NULL;
        void *uct = dlopen("libuct.so.0", RTLD_NOW | RTLD_LOCAL), *ucs = NULL;
        if (!uct)
            e = dlerror();
        else if (!(ucs = dlopen("libucs.so.0", RTLD_NOW | RTLD_LOCAL)))
            e = dlerror();
        if (!uct || !ucs) {
            snprintf(L.why, sizeof L.why, "%s could not be loaded (%s)",
                     uct ? "libucs.so.0" : "libuct.so.0", e ? e : "not found");
        } else {
            int miss = 0;
#define SYM(lib, name)                                                                     \
    if (!miss && !(*(void **)&L.name = dlsym(lib, #name))) {                                \
        snprintf(L.why, sizeof L.why, "the UCX found lacks %s", #name);                    \
        miss = 1;                                                                          \
    }
            SYM(uct, uct_query_components)
            SYM(uct, uct_release_component_list)
            SYM(uct, uct_component_query)
            SYM(uct, uct_md_config_read)
            SYM(uct, uct_md_open)
            SYM(uct, uct_md_close)
            SYM(uct, uct_md_query)
            SYM(uct, uct_md_query_tl_resources)
            SYM(uct, uct_release_tl_resource_list)
            SYM(uct, uct_md_iface_config_read)
            SYM(uct, uct_config_release)
            SYM(uct, uct_iface_open)
            SYM(uct, uct_iface_close)
            SYM(uct, uct_iface_query)
            SYM(uct, uct_iface_get_device_address)
            SYM(uct, uct_iface_get_address)
            SYM(uct, uct_iface_is_reachable)
            SYM(uct, uct_iface_set_am_handler)
            SYM(uct, uct_ep_create)
            SYM(uct, uct_ep_destroy)
            SYM(uct, uct_ep_get_address)
            SYM(uct, uct_ep_connect_to_ep)
            SYM(uct, uct_worker_create)
            SYM(uct, uct_worker_destroy)
            SYM(uct, uct_md_mem_reg)
            SYM(uct, uct_md_mem_dereg)
            SYM(ucs, ucs_async_context_create)
            SYM(ucs, ucs_async_context_destroy)
#undef SYM
            L.ok = !miss;
        }
        /* The libraries stay loaded: UCX does not support being unloaded. */
    }
    if (!L.ok)
        say(why, n, "%s", L.why);
    return L.ok ? 0 : -1;
}

/* One transport resource: which component and memory domain offer (tl, device). */
typedef struct {
    uct_component_h comp;
    char md[UCT_MD_NAME_MAX], tl[UCT_TL_NAME_MAX], dev[UCT_DEVICE_NAME_MAX];
} lg_res;

/* Every (tl, device) UCX offers here, at most `max`. */
static int list_resources(lg_res *out, int max) {
    uct_component_h *comps;
    unsigned nc, c, m, t;
    int k = 0;
    if (L.uct_query_components(&comps, &nc) != UCS_OK)
        return 0;
    for (c = 0; c < nc; c++) {
        uct_component_attr_t ca;
        memset(&ca, 0, sizeof ca);
        ca.field_mask = UCT_COMPONENT_ATTR_FIELD_NAME | UCT_COMPONENT_ATTR_FIELD_MD_RESOURCE_COUNT;
        if (L.uct_component_query(comps[c], &ca) != UCS_OK || !ca.md_resource_count)
            continue;
        ca.md_resources = calloc(ca.md_resource_count, sizeof(uct_md_resource_desc_t));
        if (!ca.md_resources)
            continue;
        ca.field_mask = UCT_COMPONENT_ATTR_FIELD_MD_RESOURCES;
        if (L.uct_component_query(comps[c], &ca) == UCS_OK) {
            for (m = 0; m < ca.md_resource_count; m++) {
                uct_md_config_t *cfg;
                uct_md_h md;
                uct_tl_resource_desc_t *res;
                unsigned nr;
                const char *mdn = ca.md_resources[m].md_name;
                if (L.uct_md_config_read(comps[c], NULL, NULL, &cfg) != UCS_OK)
                    continue;
                ucs_status_t st = L.uct_md_open(comps[c], mdn, cfg, &md);
                L.uct_config_release(cfg);
                if (st != UCS_OK)
                    continue;
                if (L.uct_md_query_tl_resources(md, &res, &nr) == UCS_OK) {
                    for (t = 0; t < nr && k < max; t++, k++) {
                        out[k].comp = comps[c];
                        snprintf(out[k].md, sizeof out[k].md, "%s", mdn);
                        snprintf(out[k].tl, sizeof out[k].tl, "%s", res[t].tl_name);
                        snprintf(out[k].dev, sizeof out[k].dev, "%s", res[t].dev_name);
                    }
                    L.uct_release_tl_resource_list(res);
                }
                L.uct_md_close(md);
            }
        }
        free(ca.md_resources);
    }
    /* The component handles stay valid while libuct is loaded (it is never unloaded). */
    L.uct_release_component_list(comps);
    return k;
}

/* Writes "tl/dev tl/dev ..." of every resource into buf: what `ucx:<tl>` may name. */
int lg_uct_resources(char *buf, size_t n) {
    lg_res r[64];
    int k, i;
    size_t at = 0;
    if (lg_uct_load(NULL, 0))
        return -1;
    k = list_resources(r, 64);
    buf[0] = 0;
    for (i = 0; i < k && at < n; i++)
        at += snprintf(buf + at, n - at, "%s%s/%s", i ? " " : "", r[i].tl, r[i].dev);
    return k;
}

/* The active-message handler. Like MPI's unexpected path, the payload is copied out at
 * the receive, not here: where UCT lets the handler keep the descriptor (UCT_CB_PARAM_
 * FLAG_DESC), it is queued and released by lg_uct_recv after the copy, so o_r holds the
 * copy as MPI's does. Otherwise the copy is made here. */
static ucs_status_t am_cb(void *arg, void *data, size_t length, unsigned flags) {
    lg_uct *u = arg;
    uint64_t total;
    int held = 0, last = 1;
    size_t len;
    if (length < 8)
        return UCS_OK;
    memcpy(&total, data, 8);
    len = length - 8;
    if (total == LG_FIN) {
        u->fins++;
        return UCS_OK;
    }
    if (total != LG_STOP && (total & LG_RTS)) {
        len = 0; /* the payload is read by the receive (get_zcopy) */
    } else if (total != LG_STOP) {
        if (len && (flags & UCT_CB_PARAM_FLAG_DESC))
            held = 1;
        else if (len && u->rx_off + len <= u->cap)
            memcpy(u->rbuf + u->rx_off, (char *)data + 8, len);
        u->rx_off += len;
        last = u->rx_off >= total;
        if (last)
            u->rx_off = 0;
    }
    if (u->head - u->tail >= LG_RING) {
        u->overflow = 1;
        return UCS_OK;
    }
    unsigned k = u->head++ % LG_RING;
    u->ring[k].data = held ? (char *)data + 8 : NULL;
    u->ring[k].len = len;
    u->ring[k].total = total;
    u->ring[k].last = last;
    return held ? UCS_INPROGRESS : UCS_OK;
}

static void comp_cb(uct_completion_t *self) { (void)self; }

/* The probe buffers are mapped, never taken from malloc: freeing a large malloc block
 * moves glibc's mmap threshold and leaves holes the application's own blocks then land in
 * (see src/base/alloc.rs). */
static char *lg_map(size_t bytes) {
    void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    return p == MAP_FAILED ? NULL : (char *)p;
}

static void lg_unmap(char *p, size_t bytes) {
    if (p)
        munmap(p, bytes);
}

void lg_uct_close(lg_uct *u) {
    if (!u)
        return;
    for (; u->tail != u->head; u->tail++)
        if (u->ring[u->tail % LG_RING].data)
            uct_iface_release_desc(u->ring[u->tail % LG_RING].data - 8);
    if (u->ep)
        L.uct_ep_destroy(u->ep);
    if (u->get_ep)
        L.uct_ep_destroy(u->get_ep);
    if (u->get_iface)
        L.uct_iface_close(u->get_iface);
    if (u->get_md)
        L.uct_md_close(u->get_md);
    if (u->registered)
        L.uct_md_mem_dereg(u->md, u->memh);
    if (u->iface)
        L.uct_iface_close(u->iface);
    if (u->md)
        L.uct_md_close(u->md);
    if (u->worker)
        L.uct_worker_destroy(u->worker);
    if (u->async)
        L.ucs_async_context_destroy(u->async);
    lg_unmap(u->sbuf, u->cap + 8);
    lg_unmap(u->rbuf, u->cap + 8);
    free(u);
}

/* Opens the memory domain and an interface of resource `r` on `worker`. 0, or -1 with
 * the reason (what was opened is left in *md and *iface for the caller to close). */
static int open_iface(const lg_res *r, uct_worker_h worker, uct_md_h *md, uct_iface_h *iface,
                      char *why, size_t n) {
    uct_md_config_t *mcfg;
    uct_iface_config_t *icfg;
    uct_iface_params_t p;
    ucs_status_t st;
    if (L.uct_md_config_read(r->comp, NULL, NULL, &mcfg) != UCS_OK) {
        say(why, n, "%s: memory domain configuration", r->md);
        return -1;
    }
    st = L.uct_md_open(r->comp, r->md, mcfg, md);
    L.uct_config_release(mcfg);
    if (st != UCS_OK) {
        *md = NULL;
        say(why, n, "%s: memory domain could not be opened (status %d)", r->md, (int)st);
        return -1;
    }
    if (L.uct_md_iface_config_read(*md, r->tl, NULL, NULL, &icfg) != UCS_OK) {
        say(why, n, "%s: interface configuration", r->tl);
        return -1;
    }
    memset(&p, 0, sizeof p);
    p.field_mask = UCT_IFACE_PARAM_FIELD_OPEN_MODE | UCT_IFACE_PARAM_FIELD_DEVICE |
                   UCT_IFACE_PARAM_FIELD_STATS_ROOT | UCT_IFACE_PARAM_FIELD_RX_HEADROOM |
                   UCT_IFACE_PARAM_FIELD_CPU_MASK;
    p.open_mode = UCT_IFACE_OPEN_MODE_DEVICE;
    p.mode.device.tl_name = r->tl;
    p.mode.device.dev_name = r->dev;
    st = L.uct_iface_open(*md, worker, &p, icfg, iface);
    L.uct_config_release(icfg);
    if (st != UCS_OK) {
        *iface = NULL;
        say(why, n, "%s/%s: interface could not be opened (status %d)", r->tl, r->dev, (int)st);
        return -1;
    }
    return 0;
}

/* Opens an interface on one resource; NULL with the reason where it cannot carry the
 * probes (no active messages, no way to connect). */
static lg_uct *open_on(const lg_res *r, size_t cap, char *why, size_t n) {
    lg_uct *u = calloc(1, sizeof *u);
    uct_md_attr_t ma;
    ucs_status_t st;
    if (!u)
        return NULL;
    snprintf(u->tl, sizeof u->tl, "%s", r->tl);
    snprintf(u->dev, sizeof u->dev, "%s", r->dev);
    u->cap = cap;
    u->sbuf = lg_map(cap + 8);
    u->rbuf = lg_map(cap + 8);
    if (!u->sbuf || !u->rbuf) {
        say(why, n, "out of memory");
        goto fail;
    }
    /* Written in full now: page faults are not part of any probe. */
    memset(u->sbuf, 0xA5, cap + 8);
    memset(u->rbuf, 0x5B, cap + 8);
    if ((st = L.ucs_async_context_create(UCS_ASYNC_MODE_THREAD_SPINLOCK, &u->async)) != UCS_OK ||
        (st = L.uct_worker_create(u->async, UCS_THREAD_MODE_SINGLE, &u->worker)) != UCS_OK) {
        say(why, n, "UCT worker: status %d", (int)st);
        goto fail;
    }
    if (open_iface(r, u->worker, &u->md, &u->iface, why, n))
        goto fail;
    if (L.uct_iface_query(u->iface, &u->attr) != UCS_OK) {
        say(why, n, "%s/%s: interface query failed", r->tl, r->dev);
        goto fail;
    }
    if (!(u->attr.cap.flags & UCT_IFACE_FLAG_AM_SHORT) ||
        !(u->attr.cap.flags & UCT_IFACE_FLAG_AM_BCOPY) || u->attr.cap.am.max_short < 8 ||
        u->attr.cap.am.max_bcopy <= 8) {
        say(why, n, "%s offers no short and buffered active messages", r->tl);
        goto fail;
    }
    if (u->attr.cap.flags & UCT_IFACE_FLAG_CONNECT_TO_IFACE)
        u->ep_mode = 0;
    else if (u->attr.cap.flags & UCT_IFACE_FLAG_CONNECT_TO_EP)
        u->ep_mode = 1;
    else {
        say(why, n, "%s connects neither to an interface nor to an endpoint", r->tl);
        goto fail;
    }
    if (L.uct_iface_set_am_handler(u->iface, LG_AM_ID, am_cb, u, 0) != UCS_OK) {
        say(why, n, "%s: active-message handler refused", r->tl);
        goto fail;
    }
    /* The worker progresses only the interfaces enabled on it. */
    uct_iface_progress_enable(u->iface, UCT_PROGRESS_SEND | UCT_PROGRESS_RECV);
    /* Zero-copy where the interface has it and the send buffer registers (a memory
     * domain without registration, such as tcp's, takes the buffer as it is). */
    memset(&ma, 0, sizeof ma);
    if ((u->attr.cap.flags & UCT_IFACE_FLAG_AM_ZCOPY) && u->attr.cap.am.max_hdr >= 8 &&
        u->attr.cap.am.max_zcopy > 8 && L.uct_md_query(u->md, &ma) == UCS_OK) {
        if (!(ma.cap.flags & UCT_MD_FLAG_REG))
            u->zcopy = 1;
        else if (L.uct_md_mem_reg(u->md, u->sbuf, cap + 8, UCT_MD_MEM_ACCESS_ALL, &u->memh) ==
                 UCS_OK)
            u->zcopy = u->registered = 1;
    }
    u->comp.func = comp_cb;
    u->comp.count = 0;
    u->comp.status = UCS_OK;
    if (u->ep_mode) {
        uct_ep_params_t ep;
        memset(&ep, 0, sizeof ep);
        ep.field_mask = UCT_EP_PARAM_FIELD_IFACE;
        ep.iface = u->iface;
        if (L.uct_ep_create(&ep, &u->ep) != UCS_OK) {
            u->ep = NULL;
            say(why, n, "%s: endpoint could not be created", r->tl);
            goto fail;
        }
    }
    return u;
fail:
    lg_uct_close(u);
    return NULL;
}

static int zcopy_ok(const lg_uct *u) { return u->zcopy; }

/* Devices in the order to try: tcp over loopback only inside a node, and first there. */
static int dev_rank(const lg_res *r, int inter) {
    int lo = strcmp(r->dev, "lo") == 0;
    if (strcmp(r->tl, "tcp"))
        return 1;
    if (inter)
        return lo ? -1 : 1;
    return lo ? 0 : 1;
}

/* Opens the first resource of the wanted transport that works; with `peer_dev` and
 * `peer_iface` set, the first that reaches that address. */
lg_uct *lg_uct_open(const char *want, int inter, size_t cap, const uint8_t *peer,
                    size_t peer_len, char *why, size_t n) {
    lg_res r[64];
    char names[256];
    const char *order[17];
    int k, t, i, rank, found = 0;
    char *save = NULL, *tok;
    if (lg_uct_load(why, n))
        return NULL;
    k = list_resources(r, 64);
    /* `want`: transport names by preference, comma-separated (the caller orders them). */
    snprintf(names, sizeof names, "%s", want ? want : "");
    for (t = 0, tok = strtok_r(names, ",", &save); tok && t < 16;
         tok = strtok_r(NULL, ",", &save))
        order[t++] = tok;
    order[t] = NULL;
    if (!order[0]) {
        say(why, n, "no UCT transport named");
        return NULL;
    }
    say(why, n, "no UCT transport of [%s%s] here (UCX offers:", order[0], order[1] ? " ..." : "");
    for (i = 0; i < k; i++) {
        size_t at = strlen(why);
        if (at + 2 < n)
            snprintf(why + at, n - at, " %s/%s", r[i].tl, r[i].dev);
    }
    if (strlen(why) + 2 < n)
        strcat(why, ")");
    for (t = 0; order[t]; t++) {
        for (rank = 0; rank <= 1; rank++) {
            for (i = 0; i < k; i++) {
                lg_uct *u;
                if (strcmp(r[i].tl, order[t]) || dev_rank(&r[i], inter) != rank)
                    continue;
                found = 1;
                u = open_on(&r[i], cap, why, n);
                if (!u)
                    continue;
                if (peer) {
                    /* [dev_len u16][iface_len u16][ep_len u16][pad u16] dev iface ep */
                    uint16_t dl, il;
                    memcpy(&dl, peer, 2);
                    memcpy(&il, peer + 2, 2);
                    if (8 + (size_t)dl + il > peer_len ||
                        !L.uct_iface_is_reachable(u->iface,
                                                  (const uct_device_addr_t *)(peer + 8),
                                                  il ? (const uct_iface_addr_t *)(peer + 8 + dl)
                                                     : NULL)) {
                        say(why, n, "%s/%s does not reach the peer's %s", r[i].tl, r[i].dev,
                            r[i].tl);
                        lg_uct_close(u);
                        continue;
                    }
                }
                return u;
            }
        }
        if (found)
            return NULL;
    }
    return NULL;
}

/* This side's address for the peer: the layout lg_uct_open reads. Bytes written, or -1. */
long lg_uct_address(lg_uct *u, uint8_t *buf, size_t n) {
    uint16_t dl = u->attr.device_addr_len, il = u->ep_mode ? 0 : u->attr.iface_addr_len,
             el = u->ep_mode ? u->attr.ep_addr_len : 0, pad = 0;
    size_t len = 8 + (size_t)dl + il + el;
    if (len > n)
        return -1;
    memcpy(buf, &dl, 2);
    memcpy(buf + 2, &il, 2);
    memcpy(buf + 4, &el, 2);
    memcpy(buf + 6, &pad, 2);
    if (L.uct_iface_get_device_address(u->iface, (uct_device_addr_t *)(buf + 8)) != UCS_OK)
        return -1;
    if (il && L.uct_iface_get_address(u->iface, (uct_iface_addr_t *)(buf + 8 + dl)) != UCS_OK)
        return -1;
    if (el && L.uct_ep_get_address(u->ep, (uct_ep_addr_t *)(buf + 8 + dl)) != UCS_OK)
        return -1;
    return (long)len;
}

/* An endpoint of `iface` to the peer's interface in its address (the layout
 * lg_uct_address writes; `dl`: its device address's length). *ep NULL where it failed. */
static ucs_status_t ep_to_iface(uct_iface_h iface, const uint8_t *peer, uint16_t dl,
                                uct_ep_h *ep) {
    uct_ep_params_t p;
    ucs_status_t st;
    memset(&p, 0, sizeof p);
    p.field_mask =
        UCT_EP_PARAM_FIELD_IFACE | UCT_EP_PARAM_FIELD_DEV_ADDR | UCT_EP_PARAM_FIELD_IFACE_ADDR;
    p.iface = iface;
    p.dev_addr = (const uct_device_addr_t *)(peer + 8);
    p.iface_addr = (const uct_iface_addr_t *)(peer + 8 + dl);
    st = L.uct_ep_create(&p, ep);
    if (st != UCS_OK)
        *ep = NULL;
    return st;
}

/* Connects this side's endpoint to the peer's address. 0, or -1 with the reason. */
int lg_uct_connect(lg_uct *u, const uint8_t *peer, size_t len, char *why, size_t n) {
    uint16_t dl, il, el;
    ucs_status_t st;
    if (len < 8) {
        say(why, n, "short peer address");
        return -1;
    }
    memcpy(&dl, peer, 2);
    memcpy(&il, peer + 2, 2);
    memcpy(&el, peer + 4, 2);
    if (8 + (size_t)dl + il + el > len) {
        say(why, n, "short peer address");
        return -1;
    }
    if (u->ep_mode) {
        st = L.uct_ep_connect_to_ep(u->ep, (const uct_device_addr_t *)(peer + 8),
                                    (const uct_ep_addr_t *)(peer + 8 + dl));
    } else {
        st = ep_to_iface(u->iface, peer, dl, &u->ep);
    }
    if (st != UCS_OK) {
        say(why, n, "%s/%s: connecting to the peer failed (status %d)", u->tl, u->dev, (int)st);
        return -1;
    }
    return 0;
}

static uint64_t now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* One round of progress. Every 4096 idle rounds the CPU is yielded (ranks may share a
 * core, as the raw shm ring does) and the stall clock is read: 1 means the peer has been
 * silent too long. */
static int poll_once(lg_uct *u, uint64_t *t0) {
    if (uct_worker_progress(u->worker))
        return 0;
    if (++u->spins % 4096)
        return 0;
    sched_yield();
    if (!*t0)
        *t0 = now_ns();
    else if (now_ns() - *t0 > LG_STALL_NS)
        return 1;
    return 0;
}

typedef struct {
    uint64_t total;
    const char *p;
    size_t len;
} lg_pack;

static size_t pack_cb(void *dest, void *arg) {
    lg_pack *k = arg;
    memcpy(dest, &k->total, 8);
    memcpy((char *)dest + 8, k->p, k->len);
    return k->len + 8;
}

/* A header-only active message (RTS, FIN), retried while the interface has no room.
 * 1: sent; 0: failed. */
static int send_mark(lg_uct *u, uint64_t mark) {
    uint64_t t0 = 0;
    for (;;) {
        ucs_status_t st = uct_ep_am_short(u->ep, LG_AM_ID, mark, u->sbuf, 0);
        if (st == UCS_OK)
            return 1;
        if (st != UCS_ERR_NO_RESOURCE || poll_once(u, &t0))
            return 0;
    }
}

/* The rendezvous way's send: RTS, then the peer's FIN once it has read the buffer. */
static int send_rndv(lg_uct *u, size_t size) {
    uint64_t t0 = 0;
    if (!send_mark(u, (uint64_t)size | LG_RTS))
        return 0;
    while (!u->fins) {
        if (poll_once(u, &t0))
            return 0;
    }
    u->fins--;
    return 1;
}

/* The rendezvous way's receive of `size` bytes: get_zcopy from the peer's send buffer
 * over cma, in pieces of the interface's largest, then the FIN. 1: done; 0: failed. */
static int recv_rndv(lg_uct *u, size_t size) {
    size_t off = 0, max = u->get_attr.cap.get.max_zcopy;
    uint64_t t0 = 0;
    if (!u->get_ep || size > u->cap || !max)
        return 0;
    while (off < size) {
        uct_iov_t iov;
        ucs_status_t st;
        size_t len = size - off > max ? max : size - off;
        memset(&iov, 0, sizeof iov);
        iov.buffer = u->rbuf + off;
        iov.length = len;
        iov.count = 1;
        u->get_comp.count = 1;
        u->get_comp.status = UCS_OK;
        /* cma needs no remote key: it reads the peer's address space by its pid */
        st = uct_ep_get_zcopy(u->get_ep, &iov, 1, u->peer_sbuf + off, 0, &u->get_comp);
        if (st == UCS_ERR_NO_RESOURCE) {
            if (poll_once(u, &t0))
                return 0;
            continue;
        }
        if (st == UCS_INPROGRESS) {
            while (u->get_comp.count > 0) {
                if (poll_once(u, &t0))
                    return 0;
            }
            st = u->get_comp.status;
        }
        if (st != UCS_OK)
            return 0;
        off += len;
        t0 = 0;
    }
    return send_mark(u, LG_FIN);
}

/* Sends one message of `size` bytes with header `total`; returns when the buffer may be
 * reused (zcopy fragments completed, or the rendezvous' FIN in). 1: sent; 0: failed. */
static int send_msg(lg_uct *u, uint64_t total, size_t size) {
    size_t off = 0, max_short = u->attr.cap.am.max_short - 8,
           max_bcopy = u->attr.cap.am.max_bcopy - 8;
    size_t max_zcopy = zcopy_ok(u) ? u->attr.cap.am.max_zcopy - 8 : 0;
    uint64_t t0 = 0;
    if (!u->ep || size > u->cap)
        return 0;
    if (u->rndv_from && u->get_ep && total == size && size >= u->rndv_from)
        return send_rndv(u, size);
    for (;;) {
        size_t len = size - off;
        ucs_status_t st;
        if (size <= max_short && off == 0) {
            st = uct_ep_am_short(u->ep, LG_AM_ID, total, u->sbuf, (unsigned)size);
        } else if (size > max_bcopy && max_zcopy) {
            uct_iov_t iov;
            if (len > max_zcopy)
                len = max_zcopy;
            memset(&iov, 0, sizeof iov);
            iov.buffer = u->sbuf + off;
            iov.length = len;
            iov.memh = u->memh;
            iov.count = 1;
            u->comp.count++;
            st = uct_ep_am_zcopy(u->ep, LG_AM_ID, &total, 8, &iov, 1, 0, &u->comp);
            if (st != UCS_INPROGRESS)
                u->comp.count--;
            if (st == UCS_INPROGRESS)
                st = UCS_OK;
        } else {
            lg_pack k = {total, u->sbuf + off, len > max_bcopy ? max_bcopy : len};
            ssize_t r = uct_ep_am_bcopy(u->ep, LG_AM_ID, pack_cb, &k, 0);
            len = k.len;
            st = r >= 0 ? UCS_OK : (ucs_status_t)r;
        }
        if (st == UCS_ERR_NO_RESOURCE) {
            if (poll_once(u, &t0))
                return 0;
            continue;
        }
        if (st != UCS_OK)
            return 0;
        off += len;
        t0 = 0;
        if (off >= size)
            break;
    }
    while (u->comp.count > 0) {
        if (poll_once(u, &t0))
            return 0;
    }
    return u->comp.status == UCS_OK;
}

int lg_uct_send(lg_uct *u, size_t size) { return send_msg(u, size, size); }

int lg_uct_send_stop(lg_uct *u) { return send_msg(u, LG_STOP, 0); }

/* Receives one message: 1 where it had `size` bytes or was the stop mark. */
int lg_uct_recv(lg_uct *u, size_t size) {
    uint64_t t0 = 0, total = 0;
    size_t off = 0;
    for (;;) {
        unsigned k;
        while (u->head == u->tail) {
            if (u->overflow || poll_once(u, &t0))
                return 0;
        }
        k = u->tail++ % LG_RING;
        total = u->ring[k].total;
        if (total != LG_STOP && (total & LG_RTS))
            return recv_rndv(u, total & ~LG_RTS) && (total & ~LG_RTS) == size;
        if (u->ring[k].data) {
            if (off + u->ring[k].len <= u->cap)
                memcpy(u->rbuf + off, u->ring[k].data, u->ring[k].len);
            /* the descriptor starts at the data UCT passed (no rx headroom asked) */
            uct_iface_release_desc(u->ring[k].data - 8);
        }
        off += u->ring[k].len;
        if (u->ring[k].last)
            break;
    }
    if (total == LG_STOP) {
        u->stopped = 1;
        return 1;
    }
    return total == size;
}

void lg_uct_progress(lg_uct *u) { uct_worker_progress(u->worker); }
int lg_uct_stopped(const lg_uct *u) { return u->stopped; }
void lg_uct_clear_stop(lg_uct *u) { u->stopped = 0; }
const char *lg_uct_tl(const lg_uct *u) { return u->tl; }
const char *lg_uct_dev(const lg_uct *u) { return u->dev; }

/* Opens the rendezvous way beside `u`: UCT's cma transport on u's worker. 0, or -1 with
 * the reason (no cma here, no get_zcopy, no way to connect). */
int lg_uct_get_open(lg_uct *u, char *why, size_t n) {
    lg_res r[64];
    int k = list_resources(r, 64), i;
    for (i = 0; i < k; i++) {
        if (strcmp(r[i].tl, "cma"))
            continue;
        if (open_iface(&r[i], u->worker, &u->get_md, &u->get_iface, why, n))
            return -1;
        if (L.uct_iface_query(u->get_iface, &u->get_attr) != UCS_OK ||
            !(u->get_attr.cap.flags & UCT_IFACE_FLAG_GET_ZCOPY) ||
            !(u->get_attr.cap.flags & UCT_IFACE_FLAG_CONNECT_TO_IFACE)) {
            say(why, n, "cma offers no get_zcopy to an interface");
            return -1;
        }
        u->get_comp.func = comp_cb;
        return 0;
    }
    say(why, n, "UCX offers no cma transport here");
    return -1;
}

/* The rendezvous way's address for the peer: [dev_len u16][iface_len u16][0 u32] dev
 * iface, then this side's send buffer (8 bytes). Bytes written, or -1. */
long lg_uct_get_address(lg_uct *u, uint8_t *buf, size_t n) {
    uint16_t dl = u->get_attr.device_addr_len, il = u->get_attr.iface_addr_len, z = 0;
    uint64_t at = (uint64_t)(uintptr_t)u->sbuf;
    size_t len = 8 + (size_t)dl + il + 8;
    if (!u->get_iface || len > n)
        return -1;
    memcpy(buf, &dl, 2);
    memcpy(buf + 2, &il, 2);
    memcpy(buf + 4, &z, 2);
    memcpy(buf + 6, &z, 2);
    if (L.uct_iface_get_device_address(u->get_iface, (uct_device_addr_t *)(buf + 8)) != UCS_OK ||
        L.uct_iface_get_address(u->get_iface, (uct_iface_addr_t *)(buf + 8 + dl)) != UCS_OK)
        return -1;
    memcpy(buf + 8 + dl + il, &at, 8);
    return (long)len;
}

/* Connects the rendezvous way to the peer's (lg_uct_get_address). 0, or -1 with why. */
int lg_uct_get_connect(lg_uct *u, const uint8_t *peer, size_t len, char *why, size_t n) {
    uint16_t dl, il;
    ucs_status_t st;
    if (!u->get_iface || len < 8) {
        say(why, n, "short peer address");
        return -1;
    }
    memcpy(&dl, peer, 2);
    memcpy(&il, peer + 2, 2);
    if (8 + (size_t)dl + il + 8 > len) {
        say(why, n, "short peer address");
        return -1;
    }
    if (!L.uct_iface_is_reachable(u->get_iface, (const uct_device_addr_t *)(peer + 8),
                                  (const uct_iface_addr_t *)(peer + 8 + dl))) {
        say(why, n, "cma does not reach the peer (another host or process namespace)");
        return -1;
    }
    st = ep_to_iface(u->get_iface, peer, dl, &u->get_ep);
    if (st != UCS_OK) {
        say(why, n, "cma: connecting to the peer failed (status %d)", (int)st);
        return -1;
    }
    memcpy(&u->peer_sbuf, peer + 8 + dl + il, 8);
    return 0;
}

/* Messages of `from` bytes and more go the rendezvous way (0: none). */
void lg_uct_set_rndv_from(lg_uct *u, size_t from) { u->rndv_from = u->get_ep ? from : 0; }

/* What the interface's limits chose per size, for the report. */
void lg_uct_describe(const lg_uct *u, char *buf, size_t n) {
    size_t s = u->attr.cap.am.max_short - 8, b = u->attr.cap.am.max_bcopy - 8;
    if (zcopy_ok(u))
        snprintf(buf, n, "am_short to %zu B, am_bcopy to %zu B, then am_zcopy fragments of %zu B",
                 s, b, u->attr.cap.am.max_zcopy - 8);
    else
        snprintf(buf, n, "am_short to %zu B, am_bcopy to %zu B, then am_bcopy fragments of %zu B",
                 s, b, b);
}
