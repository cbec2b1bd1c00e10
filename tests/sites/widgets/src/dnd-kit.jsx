// dnd kit's sortable preset as its docs set it up: a pointer sensor that starts a drag after 5 px,
// the keyboard sensor, closest-centre collisions, and the order kept in the app's state.
import { useEffect, useState } from 'react';
import { createRoot } from 'react-dom/client';
import { DndContext, KeyboardSensor, PointerSensor, closestCenter, useSensor, useSensors } from '@dnd-kit/core';
import {
  SortableContext, arrayMove, sortableKeyboardCoordinates, useSortable, verticalListSortingStrategy,
} from '@dnd-kit/sortable';
import { CSS } from '@dnd-kit/utilities';

function Song({ id }) {
  const { attributes, listeners, setNodeRef, transform, transition } = useSortable({ id });
  const style = { transform: CSS.Transform.toString(transform), transition };
  return <li ref={setNodeRef} style={style} {...attributes} {...listeners}>{id}</li>;
}

function App() {
  const [songs, setSongs] = useState(['Blue in Green', 'So What', 'Freddie Freeloader', 'All Blues']);
  const sensors = useSensors(
    useSensor(PointerSensor, { activationConstraint: { distance: 5 } }),
    useSensor(KeyboardSensor, { coordinateGetter: sortableKeyboardCoordinates }),
  );
  useEffect(() => { document.body.dataset.ready = 'yes'; }, []);
  const onDragEnd = ({ active, over }) => {
    if (over && active.id !== over.id) {
      setSongs((list) => arrayMove(list, list.indexOf(active.id), list.indexOf(over.id)));
    }
  };
  return (
    <main>
      <h2>Playlist</h2>
      <DndContext sensors={sensors} collisionDetection={closestCenter} onDragEnd={onDragEnd}>
        <SortableContext items={songs} strategy={verticalListSortingStrategy}>
          <ul className="cards">{songs.map((id) => <Song key={id} id={id} />)}</ul>
        </SortableContext>
      </DndContext>
      <p>Order: <output id="order">{songs.join(' | ')}</output></p>
    </main>
  );
}

createRoot(document.getElementById('root')).render(<App />);
