// clawcraft test peer: the `writing` scenario — signs and books on the server side, on top of the survival scenario
// (survival.js). See README.md "Writing scenario" for what it models and what it simplifies.
//
// Written from the Bedrock protocol definitions (minecraft-data: block_entity_data, open_sign, book_edit) and how
// servers handle them (dragonfly server/block/sign.go, server/session/handler_book_edit.go: a sign block entity
// `id` "Sign" with `FrontText`/`BackText` compounds whose `Text` holds the lines, `IsWaxed`; one side applied per
// edit; pages < 50 of at most 256 bytes), independently of the bot.
'use strict'

// A standing sign the player reaches from the spawn, a waxed one, and one out of reach. Direction 0: its front faces
// south (+z), where the player stands.
const SIGN = { x: 1, y: -60, z: -2 }
const WAXED = { x: -1, y: -60, z: -2 }
const FAR = { x: -6, y: -60, z: -6 }
const BACK_TEXT = 'Welcome' // what the reachable sign's back already says
const START_INVENTORY = {
  0: ['writable_book', 1],
  1: ['oak_sign', 4],
  2: ['dirt', 16],
  9: ['writable_book', 1]
}
const SIGN_MAX_LINES = 4
const SIGN_MAX_BYTES = 256
const BOOK_MAX_PAGES = 50
const PAGE_MAX_BYTES = 256
const TITLE_MAX_CHARS = 16
const BLACK = -16777216
const OPEN_VALID_MS = 10000 // an opened editor accepts edits this long

const FACE = [[0, -1, 0], [0, 1, 0], [0, 0, -1], [0, 0, 1], [-1, 0, 0], [1, 0, 0]]
const isSign = (name) => /sign$/.test(name)

function scenario (session, deps) {
  const survival = require('./survival.js')
  const { emitEvent } = deps
  let api = null
  const signs = new Map() // "x,y,z" -> { front, back, waxed, frontOwner, backOwner }
  const opened = new Map() // "x,y,z" -> { front, at } (the editor the server opened for the player)

  const side = (text) => ({
    type: 'compound',
    value: {
      Text: { type: 'string', value: text },
      TextOwner: { type: 'string', value: '' },
      SignTextColor: { type: 'int', value: BLACK },
      IgnoreLighting: { type: 'byte', value: 0 },
      HideGlowOutline: { type: 'byte', value: 0 },
      PersistFormatting: { type: 'byte', value: 1 }
    }
  })
  const signNbt = (p, s) => ({
    type: 'compound',
    name: '',
    value: {
      id: { type: 'string', value: 'Sign' },
      x: { type: 'int', value: p.x },
      y: { type: 'int', value: p.y },
      z: { type: 'int', value: p.z },
      IsWaxed: { type: 'byte', value: s.waxed ? 1 : 0 },
      FrontText: side(s.front),
      BackText: side(s.back)
    }
  })
  // The stored sign, to the player (the only viewer the peer has).
  const sendSign = (p) => session.write('block_entity_data', { position: p, nbt: signNbt(p, signs.get(api.key(p))) })
  function addSign (p, text) {
    api.setBlock(p, 'standing_sign', { ground_sign_direction: 0 })
    signs.set(api.key(p), { front: '', back: '', waxed: false, ...text })
    sendSign(p)
  }

  const ext = {
    startInventory: START_INVENTORY,
    registryItems: ['writable_book', 'written_book', 'oak_sign'],
    noStartZombie: true,
    init (a) { api = a },
    onSpawn () {
      addSign(SIGN, { back: BACK_TEXT })
      addSign(WAXED, { front: 'Sealed', waxed: true })
      addSign(FAR, { front: 'Far away' })
      emitEvent({ event: 'writing_ready', sign: SIGN, waxed: WAXED, far: FAR, back: BACK_TEXT })
    },
    onClickBlock (d, held, clicked) {
      if (isSign(clicked.name)) return openSign(d.block_position)
      if (held && /_sign$/.test(held.name) && !/hanging/.test(held.name)) return placeSign(d, held, clicked)
      return false
    },
    // A book's item NBT: its pages (`{text, photoname}` compounds), and once signed the title, author, generation.
    itemTag (it, tag) {
      if (!it.book) return
      tag.pages = { type: 'list', value: { type: 'compound', value: it.book.pages.map(t => ({ text: { type: 'string', value: t }, photoname: { type: 'string', value: '' } })) } }
      if (it.book.title !== undefined) {
        tag.title = { type: 'string', value: it.book.title }
        tag.author = { type: 'string', value: it.book.author }
        tag.xuid = { type: 'string', value: it.book.xuid }
        tag.generation = { type: 'int', value: 0 }
      }
    },
    onPacket (name, p) {
      if (name === 'block_entity_data') return onSignData(p)
      if (name === 'book_edit') return onBookEdit(p)
      return false
    }
  }

  // --- signs ------------------------------------------------------------------------------------------------------------
  // Clicking a sign opens its editor on the side the player stands in front of (dragonfly's Sign.EditingFrontSide:
  // the player's position relative to the sign's facing); a waxed sign opens nothing.
  function openSign (pos) {
    const s = signs.get(api.key(pos))
    if (!s) return false
    if (s.waxed) {
      emitEvent({ event: 'sign_refused', pos, why: 'waxed' })
      return true
    }
    const front = api.s.eye.z - (pos.z + 0.5) > 0
    opened.set(api.key(pos), { front, at: Date.now() })
    session.write('open_sign', { position: pos, is_front: front })
    emitEvent({ event: 'sign_opened', pos, front })
    return true
  }

  // A sign item on the top face of a block: a standing sign facing the player, and its front editor opened.
  function placeSign (d, held, clicked) {
    const pos = d.block_position
    const n = FACE[d.face] || [0, 1, 0]
    const target = { x: pos.x + n[0], y: pos.y + n[1], z: pos.z + n[2] }
    if (d.face !== 1 || api.blockAt(target).name !== 'air') {
      emitEvent({ event: 'place_refused', pos: target, why: d.face !== 1 ? 'signs stand on a top face here' : 'occupied' })
      const now = api.blockAt(target)
      api.setBlock(target, now.name, now.states)
      api.sendSlot('inventory', api.s.held, held)
      return true
    }
    addSign(target, {})
    held.count -= 1
    if (held.count <= 0) api.s.inv[api.s.held] = null
    api.sendSlot('inventory', api.s.held, api.s.inv[api.s.held])
    emitEvent({ event: 'block_placed', pos: target, block: 'standing_sign', against: pos, face: d.face, left: held.count })
    opened.set(api.key(target), { front: true, at: Date.now() })
    session.write('open_sign', { position: target, is_front: true })
    emitEvent({ event: 'sign_opened', pos: target, front: true })
    return true
  }

  const sideText = (nbt, key) => {
    const s = nbt?.value?.[key]
    if (!s || s.type !== 'compound') return null
    const t = s.value?.Text
    return t && t.type === 'string' ? t.value : null
  }
  const tooLong = (text) => Buffer.byteLength(text, 'utf8') > SIGN_MAX_BYTES || text.split('\n').length > SIGN_MAX_LINES

  // The client's edit: the sign must exist, be open for this player and not waxed; the NBT must be a sign's with both
  // sides; one side changes per packet (the front when it differs, else the back, as dragonfly's Player.EditSign);
  // the text within the limits. Accepted: stored and sent back; refused: the stored sign sent back.
  function onSignData (p) {
    const pos = p.position
    const k = api.key(pos)
    const s = signs.get(k)
    const refuse = (why) => {
      if (s) sendSign(pos)
      emitEvent({ event: 'sign_refused', pos, why })
      return true
    }
    if (!s || !isSign(api.blockAt(pos).name)) return refuse('not a sign')
    const o = opened.get(k)
    if (!o || Date.now() - o.at > OPEN_VALID_MS) return refuse('editor not open')
    if (s.waxed) return refuse('waxed')
    const nbt = p.nbt
    if (!nbt || nbt.type !== 'compound' || nbt.value?.id?.value !== 'Sign') return refuse('malformed')
    const front = sideText(nbt, 'FrontText')
    const back = sideText(nbt, 'BackText')
    if (front === null || back === null) return refuse('malformed')
    let changed = null
    if (front !== s.front) changed = ['front', front]
    else if (back !== s.back) changed = ['back', back]
    if (!changed) {
      emitEvent({ event: 'sign_unchanged', pos })
      return true
    }
    if (tooLong(changed[1])) return refuse('too long')
    s[changed[0]] = changed[1]
    sendSign(pos)
    emitEvent({ event: 'sign_written', pos, side: changed[0], front: s.front, back: s.back })
    return true
  }

  // --- books ------------------------------------------------------------------------------------------------------------
  // dragonfly's handler_book_edit.go: the slot must hold a book and quill; pages 0–49; text at most 256 bytes;
  // add_page at the end (or up to two past it) makes an empty page, inside the book inserts the text; delete and swap
  // of missing pages are ignored; sign turns it into a written book (title, author, pages). The peer refuses, too, an
  // empty title or one over 16 characters (the book screen's limit). Every accepted edit sends the slot.
  function onBookEdit (p) {
    const slot = p.inventory_slot
    const it = api.s.inv[slot]
    const refuse = (why) => {
      if (slot >= 0 && slot < 36) api.sendSlot('inventory', slot, api.s.inv[slot])
      emitEvent({ event: 'book_refused', slot, type: p.type, why })
      return true
    }
    if (!Number.isInteger(slot) || slot < 0 || slot >= 36 || !it || it.name !== 'writable_book') return refuse('not a writable book')
    const book = it.book || (it.book = { pages: [] })
    const pages = book.pages
    const page = p.page_number
    if (['replace_page', 'add_page', 'delete_page'].includes(p.type)) {
      if (!Number.isInteger(page) || page < 0 || page >= BOOK_MAX_PAGES) return refuse('page out of bounds')
    }
    if (p.text !== undefined && Buffer.byteLength(p.text, 'utf8') > PAGE_MAX_BYTES) return refuse('page too long')
    switch (p.type) {
      case 'replace_page':
        while (pages.length <= page) pages.push('')
        pages[page] = p.text
        break
      case 'add_page':
        if (pages.length >= BOOK_MAX_PAGES) return refuse('book full')
        if (page >= pages.length && page <= pages.length + 2) {
          while (pages.length <= page) pages.push('')
        } else if (page < pages.length) {
          pages.splice(page, 0, p.text)
        } else return refuse('page out of bounds')
        break
      case 'delete_page':
        if (page < pages.length) pages.splice(page, 1)
        break
      case 'swap_pages':
        if (p.page1 < pages.length && p.page2 < pages.length && p.page1 >= 0 && p.page2 >= 0) {
          const t = pages[p.page1]
          pages[p.page1] = pages[p.page2]
          pages[p.page2] = t
        }
        break
      case 'sign':
        if (!p.title || [...p.title].length > TITLE_MAX_CHARS) return refuse('bad title')
        api.s.inv[slot] = { ...it, name: 'written_book', book: { pages: [...pages], title: p.title, author: p.author, xuid: p.xuid } }
        api.sendSlot('inventory', slot, api.s.inv[slot])
        emitEvent({ event: 'book_signed', slot, title: p.title, author: p.author, xuid: p.xuid, pages })
        return true
      default:
        return refuse('unknown action')
    }
    api.sendSlot('inventory', slot, it)
    emitEvent({ event: 'book_edited', slot, type: p.type, page, pages })
    return true
  }

  return survival.scenario(session, deps, ext)
}

module.exports = { scenario, SIGN, WAXED, FAR, BACK_TEXT }
