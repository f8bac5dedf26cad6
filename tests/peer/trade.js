// clawcraft test peer: the `trade` scenario — villager trading on the server side, on top of the survival scenario
// (survival.js). See README.md "Trade scenario" for what it models and what it simplifies.
//
// Written from the Bedrock protocol definitions (minecraft-data's `update_trade`, the item-stack request actions) and
// the game's documented trading rules (minecraft.wiki "Trading": uses and maxUses per offer, restock, the demand price
// adjustment, villager levels novice … master locking higher-tier offers), independently of the bot.
'use strict'

// A novice farmer next to the spawn (feet), and a wandering trader out of reach.
const VILLAGER = { position: { x: 2.5, y: -60, z: 1.5 }, title: 'entity.villager.farmer', tier: 0 }
const FAR_TRADER = { position: { x: 12.5, y: -60, z: 0.5 } }
const WINDOW = '7' // the trade window's id
// The farmer's offers (minecraft.wiki "Trading", farmer): base price, uses so far of maxUses, demand, tier.
const OFFERS = [
  { buyA: ['wheat', 20], sell: ['emerald', 1], uses: 0, maxUses: 16, demand: 2, priceMultiplierA: 0.05, traderExp: 2, tier: 0 },
  { buyA: ['emerald', 1], sell: ['bread', 6], uses: 13, maxUses: 16, demand: 0, priceMultiplierA: 0.05, traderExp: 1, tier: 0 },
  { buyA: ['emerald', 1], sell: ['apple', 4], uses: 0, maxUses: 16, demand: 0, priceMultiplierA: 0.05, traderExp: 5, tier: 1 }
]
const START_INVENTORY = { 1: ['wheat', 50], 2: ['emerald', 3] }
// The trade screen's input slots: trade2_ingredient1 slot 4, trade2_ingredient2 slot 5 (the slot numbers are the ones
// PowerNukkitX gives the trade inventory's two inputs); the created output is slot 50 named by the request id.
const INPUT_SLOT = { trade2_ingredient1: 4, trade2_ingredient2: 5 }

// The price one trade costs now: base + floor(base × demand × priceMultiplier), at least 1, at most a stack
// (minecraft.wiki "Trading" § Economics; no reputation or Hero of the Village here).
const price = (base, demand, mult) => Math.min(64, Math.max(1, base + Math.floor(base * Math.max(0, demand) * mult)))

function scenario (session, deps) {
  const survival = require('./survival.js')
  const { emitEvent } = deps
  let api = null
  const offers = OFFERS.map((o, i) => ({ ...o, netId: 1000 + i }))
  let villager = null
  let farTrader = null
  let open = false
  let inputs = new Array(6).fill(null) // the screen's input slots 4 and 5 (by slot number)
  let trade = null // the trade of the request being processed
  let currentReq = null

  const offerNbt = (o) => {
    const item = (name, count) => ({
      type: 'compound',
      value: {
        Count: { type: 'byte', value: count },
        Damage: { type: 'short', value: 0 },
        Name: { type: 'string', value: 'minecraft:' + name },
        WasPickedUp: { type: 'byte', value: 0 }
      }
    })
    const nbt = {
      buyA: item(o.buyA[0], price(o.buyA[1], o.demand, o.priceMultiplierA)),
      buyCountA: { type: 'int', value: o.buyA[1] },
      buyCountB: { type: 'int', value: o.buyB ? o.buyB[1] : 0 },
      demand: { type: 'int', value: o.demand },
      maxUses: { type: 'int', value: o.maxUses },
      netId: { type: 'int', value: o.netId },
      priceMultiplierA: { type: 'float', value: o.priceMultiplierA },
      priceMultiplierB: { type: 'float', value: 0 },
      rewardExp: { type: 'byte', value: 1 },
      sell: item(o.sell[0], o.sell[1]),
      tier: { type: 'int', value: o.tier },
      traderExp: { type: 'int', value: o.traderExp },
      uses: { type: 'int', value: o.uses }
    }
    if (o.buyB) nbt.buyB = item(o.buyB[0], o.buyB[1])
    return nbt
  }
  const offersJson = () => offers.map((o, i) => ({
    index: i, wants: o.buyA[0], price: price(o.buyA[1], o.demand, o.priceMultiplierA), base: o.buyA[1], gives: o.sell[0], count: o.sell[1], uses: o.uses, max_uses: o.maxUses, tier: o.tier
  }))
  function sendOffers () {
    session.write('update_trade', {
      window_id: WINDOW,
      window_type: 'trading',
      size: 0,
      trade_tier: VILLAGER.tier,
      villager_unique_id: villager.runtime,
      entity_unique_id: BigInt(session.runtimeId),
      display_name: VILLAGER.title,
      new_trading_ui: true,
      economic_trades: true,
      offers: {
        type: 'compound',
        name: '',
        value: {
          Recipes: { type: 'list', value: { type: 'compound', value: offers.map(offerNbt) } },
          TierExpRequirements: { type: 'list', value: { type: 'compound', value: [0, 10, 70, 150, 250].map((xp, i) => ({ [String(i)]: { type: 'int', value: xp } })) } }
        }
      }
    })
  }
  function addTrader (type, position) {
    const rid = api.s.nextEntity++
    session.write('add_entity', {
      unique_id: rid, runtime_id: rid, entity_type: `minecraft:${type}`, position,
      velocity: { x: 0, y: 0, z: 0 }, pitch: 0, yaw: 0, head_yaw: 0, body_yaw: 0, attributes: [],
      metadata: [], properties: { ints: [], floats: [] }, links: []
    })
    return { type, runtime: rid, position }
  }
  // Items left in the screen's inputs go back to the inventory when it closes (as the game does).
  function giveBackInputs () {
    for (const i of Object.values(INPUT_SLOT)) {
      const it = inputs[i]
      if (!it) continue
      let slot = api.s.inv.findIndex(x => x && x.name === it.name && x.count + it.count <= 64)
      if (slot >= 0) api.s.inv[slot].count += it.count
      else {
        slot = api.s.inv.findIndex(x => !x)
        if (slot < 0) continue
        api.s.inv[slot] = it
      }
      api.sendSlot('inventory', slot, api.s.inv[slot])
      emitEvent({ event: 'trade_input_returned', name: it.name, count: it.count, slot })
      inputs[i] = null
    }
  }

  const ext = {
    startInventory: START_INVENTORY,
    registryItems: ['wheat', 'emerald', 'bread', 'apple'],
    noStartZombie: false,
    init (a) { api = a },
    onSpawn () {
      villager = addTrader('villager_v2', VILLAGER.position)
      farTrader = addTrader('wandering_trader', FAR_TRADER.position)
      emitEvent({ event: 'trade_ready', villager: String(villager.runtime), far_trader: String(farTrader.runtime), position: VILLAGER.position, offers: offersJson() })
    },
    // An interact on the villager opens its trade screen: UpdateTrade with the offers (no ContainerOpen).
    onEntityUse (d) {
      const rid = String(d.entity_runtime_id)
      const refuse = (why) => { emitEvent({ event: 'entity_use_refused', runtime_id: rid, why }); return true }
      const who = [villager, farTrader].find(v => v && String(v.runtime) === rid)
      if (!who) return refuse('no such villager')
      if (api.dist(api.s.eye, who.position) > 6) return refuse('out of reach')
      if (who !== villager) return refuse('the wandering trader has nothing to sell')
      open = true
      api.s.screenOpen = true
      sendOffers()
      emitEvent({ event: 'trade_opened', window_id: WINDOW, offers: offersJson() })
      return true
    },
    onContainerClose (p) {
      if (!open || String(p.window_id) !== WINDOW) return false
      giveBackInputs()
      open = false
      api.s.screenOpen = false
      session.write('container_close', { window_id: WINDOW, window_type: 'trading', server: false })
      emitEvent({ event: 'trade_closed', window_id: WINDOW, offers: offersJson() })
      return true
    },
    slotRef (info) {
      const c = info.slot_type.container_id
      if (!open || INPUT_SLOT[c] === undefined || info.slot !== INPUT_SLOT[c]) return null
      return { list: inputs, i: info.slot, c }
    },
    save (req) {
      trade = null
      currentReq = req.request_id
      return { inputs: inputs.map(x => x && { ...x }), uses: offers.map(o => o.uses) }
    },
    restore (saved) {
      inputs = saved.inputs
      offers.forEach((o, i) => { o.uses = saved.uses[i] })
      trade = null
    },
    stackAction (a, touched, slotRef) {
      if (a.type_id === 'craft_recipe') {
        if (!open) return 'no trade window open'
        const o = offers.find(x => x.netId === a.recipe_network_id)
        if (!o) return `no offer ${a.recipe_network_id}`
        if (o.tier > VILLAGER.tier) return 'offer locked'
        const times = a.times_crafted || 1
        if (o.uses + times > o.maxUses) return 'offer used up'
        trade = { offer: o, times, consumed: {}, out: { name: o.sell[0], count: o.sell[1] * times } }
        return true
      }
      if (a.type_id === 'results_deprecated') {
        if (!trade) return 'results without a trade'
        const name = (a.result_items || [])[0]?.name?.replace(/^minecraft:/, '')
        if (name && name !== trade.offer.sell[0]) return `results ${name} do not match the offer's ${trade.offer.sell[0]}`
        return true
      }
      if (a.type_id === 'consume') {
        if (!trade) return 'consume without a trade'
        const src = slotRef(a.source)
        if (!src || src.list !== inputs) return 'a trade consumes from the trade screen inputs'
        const it = src.list[src.i]
        if (!it || it.stackId !== a.source.stack_id) return 'stale stack id'
        if (it.count < a.count) return 'payment missing: consume more than the input holds'
        it.count -= a.count
        trade.consumed[src.c] = (trade.consumed[src.c] || 0) + a.count
        trade.consumedName = trade.consumedName || {}
        trade.consumedName[src.c] = it.name
        if (it.count <= 0) src.list[src.i] = null
        touched.set(`${src.c}:${src.i}`, src)
        return true
      }
      if ((a.type_id === 'place' || a.type_id === 'take') && a.source && a.source.slot_type.container_id === 'creative_output') {
        if (!trade) return 'nothing traded'
        if (a.source.stack_id !== currentReq) return 'created output named by a wrong stack id (not the request id)'
        const dst = slotRef(a.destination)
        if (!dst || dst.list === inputs) return 'bad created output move'
        const n = Math.min(a.count, trade.out.count)
        const d = dst.list[dst.i]
        if (d && d.name !== trade.out.name) return 'destination holds another item'
        if (d) d.count += n
        else dst.list[dst.i] = api.stack(trade.out.name, n)
        trade.out.count -= n
        touched.set(`${dst.c}:${dst.i}`, dst)
        return true
      }
      return false
    },
    // A trade must have consumed exactly its price (per trade) of the wanted items and moved everything it gave.
    finishRequest () {
      if (!trade) return null
      const { offer: o, times } = trade
      const want = [['trade2_ingredient1', o.buyA[0], price(o.buyA[1], o.demand, o.priceMultiplierA)]]
      if (o.buyB) want.push(['trade2_ingredient2', o.buyB[0], o.buyB[1]])
      for (const [c, name, n] of want) {
        const got = trade.consumed[c] || 0
        if (got !== n * times || trade.consumedName[c] !== name) return `payment missing: ${o.sell[0]} costs ${n * times} ${name}, the request paid ${got} ${trade.consumedName?.[c] || 'nothing'}`
      }
      if (trade.out.count > 0) return 'traded items left in the output'
      o.uses += times
      emitEvent({ event: 'traded', index: offers.indexOf(o), gave: want.map(([, name, n]) => ({ name, count: n * times })), got: { name: o.sell[0], count: o.sell[1] * times }, uses: o.uses, max_uses: o.maxUses })
      trade = null
      // The offers again, with the uses, after the answer (as the screen shows the new count).
      session.later(50, () => { if (open) sendOffers() })
      return null
    }
  }

  return survival.scenario(session, deps, ext)
}

module.exports = { scenario, VILLAGER, FAR_TRADER, OFFERS, START_INVENTORY, WINDOW, price }
